"""A minimal S3 client: path-style requests signed with AWS signature version 4
(what Hadoop's s3a sends), from the standard library only. Landing files in a
bucket (adlake.landing) uses it, and the tests talk to the object store with
it without Hadoop's client, the code they check."""

from __future__ import annotations

import hashlib
import hmac
import os
import urllib.error
import urllib.request
from datetime import UTC, datetime
from urllib.parse import quote
from xml.etree import ElementTree

REGION = "us-east-1"


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


# Where a producer's client finds the store and its keys (the S3 server's own
# variables, adlake.servers.object_store).
ENDPOINT_ENV = "ADLAKE_S3_ENDPOINT"
ACCESS_KEY_ENV = "ADLAKE_S3_ACCESS_KEY"
SECRET_KEY_ENV = "ADLAKE_S3_SECRET_KEY"


class S3Client:
    def __init__(self, endpoint: str, access: str, secret: str) -> None:
        self.endpoint, self.access, self.secret = endpoint.rstrip("/"), access, secret

    def request(
        self, method: str, path: str, body: bytes = b"", query: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        """(HTTP status, body) of one request on `path` (/bucket[/key]) with
        the parameters `query`."""
        params = "&".join(
            f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}"
            for k, v in sorted((query or {}).items())
        )
        host = self.endpoint.split("://", 1)[1]
        now = datetime.now(UTC)
        stamp, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
        payload = hashlib.sha256(body).hexdigest()
        headers = {"host": host, "x-amz-content-sha256": payload, "x-amz-date": stamp}
        signed = ";".join(sorted(headers))
        canonical = "\n".join(
            [
                method,
                quote(path, safe="/~"),
                params,
                "".join(f"{name}:{headers[name]}\n" for name in sorted(headers)),
                signed,
                payload,
            ]
        )
        scope = f"{day}/{REGION}/s3/aws4_request"
        to_sign = "\n".join(
            ["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()]
        )
        key = ("AWS4" + self.secret).encode()
        for part in (day, REGION, "s3", "aws4_request"):
            key = _hmac(key, part)
        signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
        headers["authorization"] = (
            f"AWS4-HMAC-SHA256 Credential={self.access}/{scope}, "
            f"SignedHeaders={signed}, Signature={signature}"
        )
        request = urllib.request.Request(
            self.endpoint + quote(path, safe="/~") + (f"?{params}" if params else ""),
            data=body if method in ("PUT", "POST") else None,
            method=method,
            # Not urllib's default form type, which the server would parse as
            # form fields, reading the body away from the signature's hash.
            headers={k: v for k, v in headers.items() if k != "host"}
            | {"content-type": "application/octet-stream"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def list_objects(
        self, bucket: str, prefix: str, page: int = 1000
    ) -> dict[str, tuple[int, int]]:
        """key -> (size, last modified in ns since the epoch) of every object
        under `prefix` (ListObjectsV2, `page` keys a request)."""
        found: dict[str, tuple[int, int]] = {}
        token = None
        while True:
            query = {"list-type": "2", "prefix": prefix, "max-keys": str(page)}
            if token:
                query["continuation-token"] = token
            status, body = self.request("GET", f"/{bucket}", query=query)
            if status != 200:
                raise OSError(
                    f"listing s3://{bucket}/{prefix} at {self.endpoint}: {status} "
                    f"{body[:300].decode(errors='replace')}"
                )
            root = ElementTree.fromstring(body)
            space = root.tag.partition("}")[0] + "}" if root.tag.startswith("{") else ""
            for item in root.iter(f"{space}Contents"):
                key = item.findtext(f"{space}Key", "")
                modified = datetime.fromisoformat(item.findtext(f"{space}LastModified", ""))
                size = int(item.findtext(f"{space}Size", "0"))
                found[key] = (size, int(modified.timestamp() * 1e9))
            token = root.findtext(f"{space}NextContinuationToken")
            if root.findtext(f"{space}IsTruncated") != "true" or not token:
                return found


def from_environment() -> S3Client:
    """A client of the store ADLAKE_S3_ENDPOINT names, with the keys of
    ADLAKE_S3_ACCESS_KEY and ADLAKE_S3_SECRET_KEY."""
    values = {
        name: os.environ.get(name, "") for name in (ENDPOINT_ENV, ACCESS_KEY_ENV, SECRET_KEY_ENV)
    }
    missing = [name for name, value in values.items() if not value]
    if missing:
        raise ValueError(
            f"{' and '.join(missing)} unset: landing in a bucket needs the store's endpoint "
            "(http://host:port) and its access and secret keys"
        )
    return S3Client(values[ENDPOINT_ENV], values[ACCESS_KEY_ENV], values[SECRET_KEY_ENV])
