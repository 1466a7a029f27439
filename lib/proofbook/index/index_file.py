"""AdMIRaL's BM25 page index stored flat: what its index *size* is, measured as a file.

The paper's memory claim (Aly & Vlachos 2022, §5.3) compares an
inverted index (Lucene, through Pyserini) plus a title prefix tree with dense indexes of float vectors.
A Python dict of term strings costs tens of bytes per term, so the in-process size of
:class:`proofbook.index.bm25.BM25` says more about CPython than about BM25.  This module writes the
index the way an inverted-index engine stores it -- postings as document-id gaps and term frequencies
in variable-byte codes -- and reads it back into a :class:`BM25` that gives bit-for-bit the same scores
(tested), so the number of bytes is that of a real, loadable index.

The format (little-endian; every integer list is one stream of unsigned LEB128 variable-byte codes)::

    b"PBM25\\x01"                     magic and version
    <IIIQddd>                         n_terms, n_docs, n_titles, n_postings, k1, b, epsilon
    varints                           per term: its UTF-8 length; per title: its UTF-8 length;
                                      per term: its document frequency; per posting (term by term,
                                      documents ascending): the gap to the previous document id,
                                      then per posting its tf; per document: its length in tokens
    bytes                             the terms' UTF-8, then the titles' UTF-8

Terms are stored in their index order (first occurrence), so the IDF mean and thus the epsilon floor
come out identical.  Weights are recomputed when the file is read (as Lucene does at query time).
"""
from __future__ import annotations

import struct

import numpy as np
import scipy.sparse

MAGIC = b"PBM25\x01"
_HEADER = struct.Struct("<IIIQddd")


def encode_varints(values) -> bytes:
    """Unsigned LEB128: 7 bits per byte, the high bit set on every byte but a value's last."""
    values = np.asarray(values, dtype=np.uint64)
    if values.size == 0:
        return b""
    lengths = np.ones(values.size, dtype=np.int64)
    for shift in range(7, 64, 7):
        lengths += (values >> np.uint64(shift)) > 0
    starts = np.cumsum(lengths) - lengths
    position = np.arange(int(lengths.sum())) - np.repeat(starts, lengths)   # byte number within its value
    chunks = (np.repeat(values, lengths) >> (7 * position).astype(np.uint64)) & np.uint64(0x7F)
    more = position < np.repeat(lengths, lengths) - 1
    return (chunks | (more.astype(np.uint64) << np.uint64(7))).astype(np.uint8).tobytes()


def decode_varints(data: bytes | memoryview, count: int, what: str = "index") -> tuple[np.ndarray, int]:
    """The first ``count`` values of a varint stream and the number of bytes they took."""
    raw = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(raw < 0x80)
    if len(ends) < count:
        raise ValueError(f"{what}: truncated: expected {count} numbers, found {len(ends)}")
    if count == 0:
        return np.zeros(0, dtype=np.uint64), 0
    ends = ends[:count]
    used = int(ends[-1]) + 1
    starts = np.concatenate([[0], ends[:-1] + 1])
    lengths = ends - starts + 1
    if lengths.max() > 10:
        raise ValueError(f"{what}: a number is longer than 64 bits: not a varint stream")
    owner = np.repeat(np.arange(count), lengths)
    position = np.arange(used) - starts[owner]
    values = np.zeros(count, dtype=np.uint64)
    np.add.at(values, owner, (raw[:used] & np.uint64(0x7F)).astype(np.uint64) << (7 * position).astype(np.uint64))
    return values, used


def _strings(lengths: np.ndarray, blob: bytes) -> list[str]:
    bounds = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return [blob[bounds[i]:bounds[i + 1]].decode("utf-8") for i in range(len(lengths))]


def write_index(backend, k1: float, b: float, epsilon: float, titles: list[str] = ()) -> bytes:
    """The bytes of a fast-backend BM25 index (``BM25._impl``), with the page titles if given."""
    matrix = backend.matrix
    terms = [term.encode("utf-8") for term in backend.vocabulary]           # dicts keep index order
    names = [title.encode("utf-8") for title in titles]
    frequency = np.diff(matrix.indptr)
    first = np.zeros(len(matrix.indices), dtype=bool)
    first[matrix.indptr[:-1][frequency > 0]] = True
    gaps = np.where(first, matrix.indices, np.diff(matrix.indices, prepend=0)).astype(np.int64)
    numbers = np.concatenate([[len(t) for t in terms], [len(n) for n in names], frequency, gaps,
                              backend.counts, backend.doc_len]).astype(np.uint64)
    header = _HEADER.pack(len(terms), backend.n_docs, len(names), matrix.nnz, k1, b, epsilon)
    return MAGIC + header + encode_varints(numbers) + b"".join(terms) + b"".join(names)


def read_index(data: bytes, what: str = "index") -> dict:
    """Parse :func:`write_index`'s bytes: vocabulary, tf matrix, document lengths, titles and parameters."""
    if not data.startswith(MAGIC):
        raise ValueError(f"{what}: not a proofbook BM25 index (expected the header {MAGIC!r})")
    offset = len(MAGIC)
    if len(data) < offset + _HEADER.size:
        raise ValueError(f"{what}: truncated header")
    n_terms, n_docs, n_titles, nnz, k1, b, epsilon = _HEADER.unpack_from(data, offset)
    offset += _HEADER.size
    count = 2 * n_terms + n_titles + 2 * nnz + n_docs
    numbers, used = decode_varints(memoryview(data)[offset:], count, what)
    offset += used
    cut = np.cumsum([n_terms, n_titles, n_terms, nnz, nnz])
    term_len, title_len, frequency, gaps, counts, doc_len = np.split(numbers.astype(np.int64), cut)
    if int(frequency.sum()) != nnz:
        raise ValueError(f"{what}: document frequencies add up to {int(frequency.sum())}, not {nnz} postings")
    strings_end = offset + int(term_len.sum()) + int(title_len.sum())
    if len(data) != strings_end:
        raise ValueError(f"{what}: expected {strings_end} bytes, found {len(data)}")
    term_blob = data[offset:offset + int(term_len.sum())]
    titles = _strings(title_len, data[offset + int(term_len.sum()):strings_end])
    indptr = np.concatenate([[0], np.cumsum(frequency)])
    base = np.repeat(indptr[:-1], frequency)
    cumulative = np.cumsum(gaps)
    starts = np.concatenate([[0], cumulative])[base]        # sum of gaps before the term's first posting
    indices = cumulative - starts
    if nnz and (indices.min() < 0 or indices.max() >= n_docs):
        raise ValueError(f"{what}: a posting points outside the {n_docs} documents")
    term_frequency = scipy.sparse.csr_matrix((counts.astype(np.float64), indices.astype(np.int32), indptr),
                                             shape=(n_terms, n_docs))
    vocabulary = {term: i for i, term in enumerate(_strings(term_len, term_blob))}
    if len(vocabulary) != n_terms:
        raise ValueError(f"{what}: the vocabulary repeats a term")
    return {"vocabulary": vocabulary, "term_frequency": term_frequency, "doc_len": doc_len.tolist(),
            "titles": titles, "k1": k1, "b": b, "epsilon": epsilon}
