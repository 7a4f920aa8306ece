"""The static reference data: about 12 media, 2-4 campaigns per account, 1-3
ads per campaign, written once (dimensions/*.jsonl)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from adlake.generator.common import write_jsonl

MEDIA = (
    ("Findly Search", "search"),
    ("Seekwell", "search"),
    ("Lookup Ads", "search"),
    ("Scrollbook", "feed"),
    ("Newsstream", "feed"),
    ("Dailyfeed", "feed"),
    ("Tubeview", "video"),
    ("Clipcast", "video"),
    ("Streamly", "video"),
    ("Chatterly", "social"),
    ("Pinwall", "social"),
    ("Circlespace", "social"),
)

OBJECTIVES = ("awareness", "traffic", "conversions")


@dataclass
class Dimensions:
    media: list[dict]
    campaigns: list[dict]
    ads: list[dict]
    # ad_id -> (ad_id, campaign_id, account_id, billing_type): what an event needs.
    ad_chain: dict[int, tuple[int, int, int, str]]


def build_dimensions(rng: random.Random, account_ids: list[int]) -> Dimensions:
    media = [
        {"media_id": media_id, "media_name": name, "media_type": media_type}
        for media_id, (name, media_type) in enumerate(MEDIA, start=1)
    ]
    campaigns, ads, ad_chain = [], [], {}
    campaign_id, ad_id = 10_000, 100_000
    for account_id in account_ids:
        for _ in range(rng.randint(2, 4)):
            campaign_id += 1
            objective = rng.choice(OBJECTIVES)
            campaigns.append(
                {
                    "campaign_id": campaign_id,
                    "account_id": account_id,
                    "campaign_name": f"{objective.title()} campaign {campaign_id}",
                    "objective": objective,
                }
            )
            for _ in range(rng.randint(1, 3)):
                ad_id += 1
                # Fewer oCPM ads: it is the newer, pricier way to buy.
                billing_type = rng.choices(("CPC", "CPM", "oCPM"), weights=(4, 4, 2))[0]
                ads.append(
                    {
                        "ad_id": ad_id,
                        "campaign_id": campaign_id,
                        "ad_name": f"Ad {ad_id} ({billing_type})",
                        "billing_type": billing_type,
                    }
                )
                ad_chain[ad_id] = (ad_id, campaign_id, account_id, billing_type)
    return Dimensions(media, campaigns, ads, ad_chain)


def write_dimensions(out: Path, dims: Dimensions) -> None:
    write_jsonl(out / "dimensions" / "media.jsonl", dims.media)
    write_jsonl(out / "dimensions" / "campaigns.jsonl", dims.campaigns)
    write_jsonl(out / "dimensions" / "ads.jsonl", dims.ads)
