"""Compare the offline sentence encoders for HSII's dataset analysis on the shipped case bank.

    python -m benchmarks.hsii_encoders [--out results.json]

For each encoder (all-MiniLM-L6-v2 in numpy, TF-IDF + SVD): embedding time,
DBSCAN at the k-distance knee, number of clusters, noise share, mean silhouette
(cosine) and adjusted Rand index against the cases' domains (the bank's only
ground truth for what a cluster should be). Prints a JSON summary; the HSII
README and closing note quote it.
"""

from __future__ import annotations

import time
from typing import Any

from benchmarks import command, emit
from normlab.hsii import load_cases
from normlab.hsii.clusters import cluster_cases
from normlab.models.encoder import load_encoder


def measure(encoder: str) -> dict[str, Any]:
    cases = load_cases()
    load_encoder(encoder)  # load once outside the timing
    started = time.perf_counter()
    analysis = cluster_cases(cases, encoder)
    return {
        "encoder": analysis.encoder,
        "cases": analysis.cases,
        "seconds": round(time.perf_counter() - started, 1),
        "eps": round(analysis.eps, 4),
        "clusters": len(analysis.clusters),
        "noise_share": round(analysis.noise_share, 3),
        "silhouette": None if analysis.silhouette is None else round(analysis.silhouette, 3),
        "domain_ari": None
        if analysis.domain_agreement is None
        else round(analysis.domain_agreement, 3),
        "largest_cluster_share": max((c.share for c in analysis.clusters), default=0.0),
    }


def main() -> None:
    parser = command(__doc__)
    arguments = parser.parse_args()
    summary = {name: measure(name) for name in ("minilm", "tfidf")}
    emit(summary, arguments.out)


if __name__ == "__main__":
    main()
