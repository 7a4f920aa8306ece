"""The warehouse, built batch by batch: `warehouse` (what `make run` runs:
generate, land and build each batch, then a summary against the truth) and
`continuous` (watch the landing folder and build each batch as it lands)."""
