"""A static sentence-embedding model read from the files the ``wordllama`` package ships.

WordLlama (Lee Miller, MIT licence, https://github.com/dleemiller/WordLlama) is a table of
token vectors distilled from the input embeddings of large language models ("l2_supercat":
Llama 2's 32,000-token vocabulary, 1,024 dimensions trained Matryoshka-style, shipped cut
to the first 256 as float16: ``wordllama/weights/l2_supercat_256.safetensors``, 16 MB, with
its tokenizer ``wordllama/tokenizers/l2_supercat_tokenizer_config.json``). A text's vector
is the mean of its tokens' vectors (no special tokens, no truncation), scaled to unit
length, as ``WordLlama.embed(norm=True)`` computes it.

Only those two files are read, with ``tokenizers`` and ``safetensors`` (both
dependencies of ``wordllama``): wordllama's own loader is not used, because it falls back
to downloading from a model hub when a file is missing, and nothing here may go over the
network. The mean is one sparse (texts x vocabulary) count matrix times the token table,
so no (texts x tokens x 256) array is ever made.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

__all__ = ["StaticModel", "ModelUnavailable", "DIMENSIONS"]

#: Dimensions of the vectors.
DIMENSIONS = 256
#: The files inside the wordllama package.
_WEIGHTS = "weights/l2_supercat_256.safetensors"
_TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"


class ModelUnavailable(RuntimeError):
    """The embedding model cannot be loaded (the optional package is not installed, or a
    file of it is missing or unreadable); the message is one line."""


def _package_folder(name: str) -> Path:
    """The folder of an installed package, without importing it.

    Raises:
        ModelUnavailable: it is not installed.
    """
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable(f"the package {name} is not installed (pip install "
                               "'paperdesk[embeddings]')")
    return Path(next(iter(spec.submodule_search_locations)))


class StaticModel:
    """WordLlama's l2_supercat token table, 256 dimensions.

    Args:
        folder: the ``wordllama`` package folder (default: the installed one).
    Raises:
        ModelUnavailable: the package, ``tokenizers`` or ``safetensors`` is missing, or
            the files cannot be read.
    """

    #: What the vectors are called in files and reports.
    name = "wordllama-l2-supercat-256"

    def __init__(self, folder: Path | None = None):
        folder = Path(folder) if folder is not None else _package_folder("wordllama")
        try:
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ModelUnavailable(f"{exc.name} is not installed (pip install "
                                   "'paperdesk[embeddings]')") from None
        try:
            table = load_file(str(folder / _WEIGHTS))["embedding.weight"]
            self._tokenizer = Tokenizer.from_file(str(folder / _TOKENIZER))
        except (OSError, KeyError, ValueError, Exception) as exc:  # noqa: BLE001 (one line)
            raise ModelUnavailable(f"{folder}: the embedding model cannot be read "
                                   f"({type(exc).__name__})") from None
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self._table = np.ascontiguousarray(table, dtype=np.float32)
        self.dimensions = int(self._table.shape[1])

    def encode(self, texts: list[str]) -> np.ndarray:
        """The unit-length vectors of some texts.

        Args:
            texts: the texts (a paper's is :func:`~paperdesk.core.discover.vectorize.paper_text`).
        Returns:
            float32 array (len(texts), 256), each row of length 1, or all zeros for a text
            without a token.
        """
        from scipy.sparse import csr_matrix

        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64,
                              count=len(encodings))
        ids = np.fromiter((i for e in encodings for i in e.ids), dtype=np.int64,
                          count=int(lengths.sum()))
        np.clip(ids, 0, len(self._table) - 1, out=ids)
        indptr = np.concatenate([[0], np.cumsum(lengths)])
        counts = csr_matrix((np.ones(len(ids), dtype=np.float32), ids, indptr),
                            shape=(len(texts), len(self._table)))
        vectors = np.asarray(counts @ self._table, dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        np.divide(vectors, norms, out=vectors, where=norms > 0)
        return vectors
