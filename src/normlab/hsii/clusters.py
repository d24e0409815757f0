"""Dataset analysis (§6.2, Figures 3 and 5): embed the cases, cluster them, draw the map.

§6.2: "BERT … extract features from our test query cases … DBSCAN … dimension
reduction with LSH … seven dimensions". No parameters are printed. Ours:

- text of a case: its topic, scene and the last messages of its history (the
  encoder reads at most 256 tokens, as all-MiniLM-L6-v2 does);
- embeddings: all-MiniLM-L6-v2 offline (``normlab.models.encoder``), or TF-IDF +
  SVD, or a named model folder;
- DBSCAN on cosine distance, ``eps`` at the knee of the sorted k-distance curve
  (k = ``min_samples``) unless given;
- Figure 3: a 2-D map, by random-hyperplane (LSH-style) projection, seeded, or PCA;
- Figure 5: a radar of cluster shares (noise left out, its share reported).

Each cluster is named by its most common domain and its most distinctive words,
so the radar reads without a legend.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel

from normlab.hsii.schemas import Case
from normlab.models.encoder import load_encoder
from normlab.report import png_of, pyplot

HISTORY_MESSAGES = 6
DEFAULT_MIN_SAMPLES = 5
Projection = Literal["lsh", "pca"]


def case_text(case: Case) -> str:
    recent = " ".join(m.content for m in case.messages[-HISTORY_MESSAGES:])
    return f"{case.topic}. {case.background.scene} {recent}"


class Cluster(BaseModel):
    label: int
    name: str
    size: int
    share: float
    domains: dict[str, int]


class ClusterAnalysis(BaseModel):
    encoder: str
    cases: int
    eps: float
    min_samples: int
    clusters: list[Cluster]
    noise: int
    noise_share: float
    silhouette: float | None
    """Mean silhouette (cosine) of the clustered cases; None with fewer than two clusters."""
    domain_agreement: float | None
    """Adjusted Rand index between clusters and the cases' domains (noise left out)."""
    assignments: dict[str, int]
    projection: Projection
    points: list[tuple[float, float]]


def knee_eps(vectors: NDArray[np.float32], k: int) -> float:
    """The k-distance knee: the sorted k-th-neighbour cosine distance farthest from its chord."""
    from sklearn.neighbors import NearestNeighbors

    k = max(1, min(k, len(vectors) - 1))
    distances, _ = NearestNeighbors(n_neighbors=k + 1, metric="cosine").fit(vectors).kneighbors()
    curve = np.sort(distances[:, k])
    x = np.linspace(0.0, 1.0, curve.size)
    span = curve[-1] - curve[0]
    if span <= 0:
        return float(curve[-1]) or 1e-3
    y = (curve - curve[0]) / span
    return float(curve[int(np.argmax(x - y))]) or 1e-3


def project(vectors: NDArray[np.float32], how: Projection, seed: int = 0) -> NDArray[np.float64]:
    """2-D points: random hyperplanes (LSH-style, seeded) or the first two principal axes."""
    centred = vectors - vectors.mean(axis=0)
    if how == "pca":
        _, _, axes = np.linalg.svd(centred, full_matrices=False)
        return np.asarray(centred @ axes[:2].T, dtype=np.float64)
    planes = np.random.default_rng(seed).standard_normal((vectors.shape[1], 2))
    return np.asarray(centred @ planes, dtype=np.float64)


def _names(
    cases: Sequence[Case], labels: NDArray[np.int64], texts: Sequence[str]
) -> dict[int, str]:
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(stop_words="english", max_features=5000)
    matrix = vectorizer.fit_transform(texts)
    vocabulary = np.array(vectorizer.get_feature_names_out())
    names = {}
    for label in sorted(set(labels.tolist()) - {-1}):
        members = np.where(labels == label)[0]
        domain = Counter(cases[i].domain for i in members).most_common(1)[0][0]
        weights = np.asarray(matrix[members].mean(axis=0)).ravel()
        words = vocabulary[np.argsort(weights)[::-1][:2]]
        names[label] = f"{domain}: {', '.join(words)}"
    return names


def cluster_cases(
    cases: Sequence[Case],
    encoder: str = "minilm",
    eps: float | None = None,
    min_samples: int = DEFAULT_MIN_SAMPLES,
    projection: Projection = "lsh",
    seed: int = 0,
) -> ClusterAnalysis:
    from sklearn.cluster import DBSCAN
    from sklearn.metrics import adjusted_rand_score, silhouette_score

    texts = [case_text(case) for case in cases]
    model = load_encoder(encoder)
    vectors = model.encode(texts)
    radius = eps if eps is not None else knee_eps(vectors, min_samples)
    labels = DBSCAN(eps=radius, min_samples=min_samples, metric="cosine").fit_predict(vectors)
    kept = labels != -1
    groups = sorted(set(labels[kept].tolist()))
    silhouette = (
        float(silhouette_score(vectors[kept], labels[kept], metric="cosine"))
        if len(groups) > 1
        else None
    )
    agreement = (
        float(adjusted_rand_score([cases[i].domain for i in np.where(kept)[0]], labels[kept]))
        if kept.any()
        else None
    )
    names = _names(cases, labels, texts)
    clustered = int(kept.sum())
    return ClusterAnalysis(
        encoder=model.name,
        cases=len(cases),
        eps=radius,
        min_samples=min_samples,
        clusters=[
            Cluster(
                label=label,
                name=names[label],
                size=int((labels == label).sum()),
                share=float((labels == label).sum()) / clustered,
                domains=dict(Counter(cases[i].domain for i in np.where(labels == label)[0])),
            )
            for label in groups
        ],
        noise=len(cases) - clustered,
        noise_share=(len(cases) - clustered) / len(cases) if cases else 0.0,
        silhouette=silhouette,
        domain_agreement=agreement,
        assignments={case.case_id: int(label) for case, label in zip(cases, labels, strict=True)},
        projection=projection,
        points=[(float(x), float(y)) for x, y in project(vectors, projection, seed)],
    )


def for_cases(analysis: ClusterAnalysis, domains: Mapping[str, str]) -> ClusterAnalysis | None:
    """The clusters of just the cases a run used (case id → domain), on the map and shares
    made for a larger set; ``None`` when any of them is not in ``analysis`` (a run on other
    cases, whose clusters this file does not know). The clustering's own quality measures
    (eps, silhouette, agreement with domains) stay those of the whole set it was made on."""
    if not domains or any(case_id not in analysis.assignments for case_id in domains):
        return None
    kept = [
        (case_id, label, point)
        for (case_id, label), point in zip(
            analysis.assignments.items(), analysis.points, strict=True
        )
        if case_id in domains
    ]
    labels = [label for _, label, _ in kept]
    clustered = sum(label != -1 for label in labels)
    clusters = [
        cluster.model_copy(
            update={
                "size": labels.count(cluster.label),
                "share": labels.count(cluster.label) / clustered,
                "domains": dict(
                    Counter(
                        domains[case_id] for case_id, label, _ in kept if label == cluster.label
                    )
                ),
            }
        )
        for cluster in analysis.clusters
        if cluster.label in labels
    ]
    return analysis.model_copy(
        update={
            "cases": len(kept),
            "clusters": clusters,
            "noise": len(kept) - clustered,
            "noise_share": (len(kept) - clustered) / len(kept),
            "assignments": {case_id: label for case_id, label, _ in kept},
            "points": [point for _, _, point in kept],
        }
    )


def map_figure(analysis: ClusterAnalysis) -> bytes:
    """Figure 3: every case on the 2-D map, coloured by cluster (noise grey)."""
    plt = pyplot()

    figure, axes = plt.subplots(figsize=(7.5, 6))
    points = np.array(analysis.points)
    labels = np.array(list(analysis.assignments.values()))
    noise = labels == -1
    axes.scatter(points[noise, 0], points[noise, 1], s=8, c="lightgrey", label="noise")
    # One colour and marker pair per cluster: matplotlib's default cycle repeats after ten
    # colours, and the bank has more clusters than that.
    palette = plt.get_cmap("tab20")
    markers = "os^Dv<>pP*X"
    for index, cluster in enumerate(analysis.clusters):
        chosen = labels == cluster.label
        axes.scatter(
            points[chosen, 0], points[chosen, 1], s=14, label=cluster.name,
            color=palette(index % palette.N), marker=markers[index % len(markers)],
        )  # fmt: skip
    axes.set_title(
        f"Cases by {analysis.encoder} embedding, DBSCAN (eps {analysis.eps:.3f}), "
        f"{analysis.projection.upper()} projection"
    )
    axes.legend(fontsize="x-small", loc="best")
    return png_of(figure)


def radar_figure(analysis: ClusterAnalysis) -> bytes:
    """Figure 5: each cluster's share of the clustered cases, on a radar."""
    plt = pyplot()

    clusters = analysis.clusters or [
        Cluster(label=-1, name="(no cluster)", size=0, share=0.0, domains={})
    ]
    angles = [2 * math.pi * i / len(clusters) for i in range(len(clusters))]
    shares = [cluster.share for cluster in clusters]
    figure = plt.figure(figsize=(6.5, 6.5))
    axes = figure.add_subplot(polar=True)
    axes.plot([*angles, angles[0]], [*shares, shares[0]], linewidth=1.5)
    axes.fill([*angles, angles[0]], [*shares, shares[0]], alpha=0.25)
    axes.set_xticks(
        angles, [f"{c.name}\n{c.share:.0%} ({c.size})" for c in clusters], fontsize="x-small"
    )
    axes.set_title(f"Cluster shares (noise: {analysis.noise_share:.0%} of {analysis.cases})")
    return png_of(figure)
