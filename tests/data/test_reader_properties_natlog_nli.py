"""Property-based tests of the natural-logic, NLI and FEVER-extra readers (QA-NatVer proofs, MED, WiCE,
FraCaS, Climate-FEVER, EX-FEVER).

Same two properties as ``test_reader_properties.py`` (see ``reader_properties.py``): generated valid files
round-trip with nothing counted, and every single corruption is refused with a
:class:`~proofbook.data.textfile.DataError` naming the file, line and field, or counted as a documented
irregularity.  Three formats have no counterpart in the framework and are defined here:
:class:`ProofBlocks` (``.target`` lines grouped into claims), :class:`SilverBlocks` (QA-NatVer's
``output_logs.csv``) and :class:`Lines` (one sentence per line, no field at all).
"""
import ast
import string

import pytest
from hypothesis import strategies as st

from proofbook.data import misc_fever, natlog, nli
from proofbook.data.med_2hop import MED_2HOP_COLUMNS, parse_med_2hop
from proofbook.data.natlog_processed import VARIANT_BASE, parse_fewshot_processed
from proofbook.data.nli_labels import MED_2HOP_RELATIONS, MED_LABELS
from proofbook.data.proofver import OPERATORS, VERDICTS

from tests.data.reader_properties import (
    Csv, Field, Format, JsonLines, ReaderSpec, Tsv, property_tests, unique_by,
    words,
)

pytestmark = pytest.mark.unit

# --- formats of this module -----------------------------------------------------------------------


class _Blocks(Tsv):
    """Tab-separated lines without header, grouped into blocks (one per record) by blank lines.

    A record is one claim: ``id`` and a list of ``items``, each written on its own line after the id.
    A record's line is the line of its first item.  A cut inside the last record falls inside the last
    line of the file (a cut between two lines, or between two whole cells of a proof, leaves a valid
    shorter file that no reader can tell from the original).  It is a :class:`Tsv`: cells are
    positional, so a line that lost a cell may be reported as short of its last column.
    """

    items_key = "items"
    separator_after_last = False

    def __init__(self, columns):
        super().__init__(columns, header=False)

    def item_text(self, item) -> str:
        raise NotImplementedError

    def lines(self, record) -> list[str]:
        head = [str(record["id"])] if "id" in record else []
        return ["\t".join(head + [self.item_text(item)]) for item in record[self.items_key]]

    def dump(self, records):
        blocks = ["".join(line + "\n" for line in self.lines(r)) for r in records]
        return "\n".join(blocks) + ("\n" if self.separator_after_last else "")

    def line_of(self, index, records):
        return 1 + sum(len(r[self.items_key]) + 1 for r in records[:index])

    def last_text(self, records):
        return self.lines(records[-1])[-1]

    def last_line_start(self, records) -> tuple[str, int]:
        text = self.dump(records).rstrip("\n")
        return text, text.rindex("\n") + 1 if "\n" in text else 0


class ProofBlocks(_Blocks):
    """``train_with_ids_fewshot.target``: ``<id>\\t^ { span } [ span ] OP ...``, a block per claim.

    ``proof`` is the claim's list of alternative proofs, each a list of ``[claim span, evidence span,
    op]`` triples; a triple that lost a part is written with the parts it has, in order.
    """

    name = "proof-blocks"
    items_key = "proof"

    def __init__(self):
        super().__init__(("id", "proof"))

    @staticmethod
    def step_text(step) -> str:
        return " ".join(pattern % value for pattern, value in zip(("{ %s }", "[ %s ]", "%s"), step))

    def item_text(self, proof):
        return "^ " + " ".join(self.step_text(step) for step in proof)

    def cut_points(self, records):
        """Inside the last triple of the last line: after its ``{``, at the latest just before its operator."""
        text, _ = self.last_line_start(records)
        return text.rindex("{") + 1, len(text.rstrip())  # the operator is the line's last character


class SilverBlocks(_Blocks):
    """QA-NatVer's ``output_logs.csv``: one line of 7 cells per claim span, a blank line after each claim."""

    name = "silver-blocks"
    items_key = "steps"
    separator_after_last = True

    def __init__(self):
        super().__init__(natlog.SILVER_COLUMNS)

    def item_text(self, step):
        return "\t".join(step[c] for c in self.columns[1:] if c in step)

    def cut_points(self, records):
        """Inside the last line: it keeps at least one character and loses at least its last cell."""
        text, start = self.last_line_start(records)
        return start + 1, text.rindex("\t") + 1


class Lines(Format):
    """One text per line, nothing else (FraCaS raw sentences): a record is a string, it has no field.

    A cut inside the last line leaves a shorter sentence, which is still a sentence: there is no cut
    that breaks a record, so :meth:`cut_points` gives an empty range (the framework then makes none).
    """

    name = "lines"

    def dump(self, records):
        return "".join(r + "\n" for r in records)

    def last_text(self, records):
        return records[-1]

    def cut_points(self, records):
        return 0, 0


class PaddedTsv(Tsv):
    """A TSV whose header names are padded with spaces (``original_id \\t sent1 \\t ...``: med_2hop.tsv)."""

    name = "padded-tsv"

    def prefix(self):
        return " \t ".join(self.header) + " \n"


# --- QA-NatVer natural-logic proofs -----------------------------------------------------------------

span = words(max_size=12)
operator = st.sampled_from(sorted(OPERATORS))
triple = st.tuples(span, span, operator).map(list)
proof = st.lists(triple, min_size=1, max_size=3)
claim_id = st.integers(0, 10**6).map(str)


def _steps(steps):
    return tuple((s.claim_span, s.evidence_span, s.operator) for s in steps)


target_block = st.fixed_dictionaries({"id": claim_id, "proof": st.lists(proof, min_size=1, max_size=3)})
FEWSHOT_TARGETS = ReaderSpec(
    "qanatver fewshot targets", natlog.parse_fewshot_targets, ProofBlocks(), unique_by("id", target_block),
    # the id is an integer FEVER claim id: present, not empty, digits; every part of a triple is checked
    [Field("id", "id"), Field("id", "int", required=False),
     Field("proof.0.0.0", "text"), Field("proof.0.0.1", "text"), Field("proof.0.0.2", "label")],
    expect=lambda rs: [(int(r["id"]), variant, tuple(map(tuple, p))) for r in rs for variant, p in enumerate(r["proof"])],
    summary=lambda ts: [(t.claim_id, t.variant, _steps(t.steps)) for t in ts],
    id_field="id", filename="train_with_ids_fewshot.target", json_typed=False,
    # a claim id back in a later block is kept and counted (the official file does it once: claim 110631)
    counted_ok=("duplicate id",))

titled_sentences = st.lists(st.tuples(words(max_size=10), words()), min_size=1, max_size=3).map(
    lambda pairs: " </s> ".join(f"[ {title} ] {text}" for title, text in pairs))
processed_record = st.fixed_dictionaries({
    "id": st.integers(0, 10**6).map(lambda n: n * VARIANT_BASE), "claim": words(),
    "verdict": st.sampled_from(VERDICTS), "evidence": titled_sentences, "proof": proof,
    "claim_parsed": st.lists(span, min_size=1, max_size=4),
    "claim_parsed_hierarchy": st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=3), min_size=1, max_size=3),
    "alignment": st.lists(st.tuples(span, span).map(list), min_size=1, max_size=3),
}).map(lambda r: {**r, "claim_parsed_hierarchy": [[i % len(r["claim_parsed"]) for i in g]
                                                   for g in r["claim_parsed_hierarchy"]]})
FEWSHOT_PROCESSED = ReaderSpec(
    "qanatver fewshot processed", parse_fewshot_processed, JsonLines(), unique_by("id", processed_record),
    [Field("id", "int"), Field("claim", "text"), Field("verdict", "label"), Field("evidence", "text"),
     Field("proof", "list"), Field("proof.0.0", "text"), Field("proof.0.1", "text"), Field("proof.0.2", "label"),
     Field("claim_parsed", "list"), Field("claim_parsed.0", "text", required=False),
     Field("claim_parsed_hierarchy", "list"), Field("claim_parsed_hierarchy.0", "list", required=False),
     Field("claim_parsed_hierarchy.0.0", "int", required=False),
     Field("alignment", "list"), Field("alignment.0", "list", required=False),
     Field("alignment.0.0", "text"), Field("alignment.0.1", "text")],
    expect=lambda rs: [(r["id"], r["claim"], r["verdict"], r["evidence"], tuple(map(tuple, r["proof"])),
                        tuple(r["claim_parsed"]), tuple(map(tuple, r["claim_parsed_hierarchy"])),
                        tuple(map(tuple, r["alignment"]))) for r in rs],
    summary=lambda es: [(e.id, e.claim, e.verdict, e.evidence, _steps(e.steps), e.claim_parsed,
                         e.claim_parsed_hierarchy, e.alignment) for e in es],
    id_field="id", filename="processed_train-fewshot_num_samples_64_seed_0_use_retr_False_retr_evidence_2.jsonl")

silver_step = st.fixed_dictionaries({
    "claim span": span, "QA answer": st.sampled_from(natlog.QA_ANSWERS),
    "gold answer": st.sampled_from(natlog.QA_ANSWERS), "gold operator": operator,
    "evidence span": span, "operator": operator,
})
silver_block = st.fixed_dictionaries({"id": claim_id, "steps": st.lists(silver_step, min_size=1, max_size=3)})
SILVER_PROOFS = ReaderSpec(
    "qanatver silver proofs", natlog.parse_silver_proofs, SilverBlocks(), unique_by("id", silver_block),
    [Field("id", "id"), Field("id", "int", required=False),
     *(Field(f"steps.0.{column}", "text" if column.endswith("span") else "label") for column in natlog.SILVER_COLUMNS[1:])],
    expect=lambda rs: [(int(r["id"]), tuple((s["claim span"], s["evidence span"], s["operator"], s["QA answer"],
                                             s["gold answer"], s["gold operator"]) for s in r["steps"])) for r in rs],
    summary=lambda ps: [(p.claim_id, tuple((s.claim_span, s.evidence_span, s.operator, s.qa_answer, s.gold_answer,
                                            s.gold_operator) for s in p.steps)) for p in ps],
    id_field="id", filename=natlog.SILVER_FILE, json_typed=False)

# --- MED and MED 2-hop --------------------------------------------------------------------------------

MED_HEADER = ("index", "promptID", "pairID", "genre", "sentence1_binary_parse", "sentence2_binary_parse",
              "sentence1_parse", "sentence2_parse", "sentence1", "sentence2", "label1", "label2", "label3", "label4",
              "label5", "gold_label")
med_genre = st.tuples(st.sampled_from(["crowd", "paper"]), st.sampled_from(["FraCaS_GQ", "GLUE", "npi"]),
                      st.sampled_from(nli.MED_MONOTONICITY)).map(":".join)
med_record = st.integers(1, 10**5).flatmap(lambda n: st.fixed_dictionaries({
    "index": st.just(str(n)), "promptID": st.just(str(n)), "pairID": st.just(str(n)), "genre": med_genre,
    **{name: st.just("") for name in MED_HEADER[4:8] + MED_HEADER[10:15]},
    "sentence1": words(), "sentence2": words(), "gold_label": st.sampled_from(sorted(MED_LABELS)),
}))
MED = ReaderSpec(
    "med", nli.parse_med, Tsv(MED_HEADER), unique_by("pairID", med_record),
    [Field("pairID", "id"), Field("genre", "text"), Field("sentence1", "text"), Field("sentence2", "text"),
     Field("gold_label", "label")],
    expect=lambda rs: [(r["pairID"], r["sentence1"], r["sentence2"], MED_LABELS[r["gold_label"]], r["gold_label"],
                        r["genre"], r["index"], r["promptID"]) for r in rs],
    summary=lambda ps: [(p.id, p.premise, p.hypothesis, p.label, p.raw_label, p.genre, p.meta["index"],
                         p.meta["promptID"]) for p in ps],
    id_field="pairID", filename="MED.tsv", json_typed=False)

relation = st.sampled_from(sorted(MED_2HOP_RELATIONS))
positions = st.lists(st.integers(0, 30), max_size=3)


@st.composite
def formula_and_start_ends(draw):
    """``formula`` and ``start_ends`` of one row: as many edits as start/end pairs, one maybe starred."""
    if draw(st.integers(0, 9)) == 0:                    # the annotation tool's "no formula" (2 official rows)
        return "['']->None", "[([], [])]", ((), None, None)
    edits = draw(st.lists(relation, min_size=1, max_size=3))
    star = draw(st.one_of(st.none(), st.integers(0, len(edits) - 1)))
    projected = draw(st.one_of(st.none(), st.lists(relation, min_size=len(edits), max_size=len(edits))))
    left = [name + ("*" if i == star else "") for i, name in enumerate(edits)]
    start_ends = draw(st.lists(st.tuples(positions, positions), min_size=len(edits), max_size=len(edits)))
    return f"{left!r}->{projected!r}", repr(start_ends), (tuple(edits), star, None if projected is None else tuple(projected))


MED_2HOP_LABELS = sorted(MED_LABELS)
med_2hop_record = formula_and_start_ends().flatmap(lambda f: st.fixed_dictionaries({
    "original_id": st.integers(1, 6000).map(str), "sent1": words(), "sent2": words(), "keyword_before": words(max_size=10),
    "relation 1to2": relation, "pattern": words(), "original_label": st.sampled_from(MED_2HOP_LABELS),
    "original_genre": med_genre, "consistent": st.sampled_from(["True", "False"]), "formula": st.just(f[0]),
    "start_ends": st.just(f[1]), "new_label": st.sampled_from(MED_2HOP_LABELS + ["None"]), "_parsed": st.just(f[2]),
}))


def med_2hop_expect(records):
    return [(int(r["original_id"]), r["sent1"], r["sent2"], r["keyword_before"], r["relation 1to2"], r["pattern"],
             MED_LABELS[r["original_label"]], r["original_genre"], r["consistent"] == "True", *r["_parsed"],
             r["formula"], tuple((tuple(a), tuple(b)) for a, b in ast.literal_eval(r["start_ends"])),
             None if r["new_label"] == "None" else MED_LABELS[r["new_label"]]) for r in records]


MED_2HOP = ReaderSpec(
    "med 2hop", parse_med_2hop, PaddedTsv(MED_2HOP_COLUMNS),
    # one MED pair is rewritten into several rows: original_id repeats in the official file (no id here)
    st.lists(med_2hop_record, min_size=2, max_size=5),
    [Field("original_id", "int"), Field("sent1", "text"), Field("sent2", "text"), Field("keyword_before", "text"),
     Field("relation 1to2", "label"), Field("pattern", "text"), Field("original_label", "label"),
     Field("original_genre", "text"), Field("consistent", "bool-text"), Field("formula", "text"),
     Field("start_ends", "text"), Field("new_label", "label")],
    expect=med_2hop_expect,
    summary=lambda hs: [(h.original_id, h.sent1, h.sent2, h.keyword, h.relation, h.pattern, h.original_label,
                         h.original_genre, h.consistent, h.edit_relations, h.keyword_edit, h.projected_relations,
                         h.formula, h.start_ends, h.new_label) for h in hs],
    filename="med_2hop.tsv", json_typed=False)

# --- WiCE ----------------------------------------------------------------------------------------------


def wice_record(labels, oracle: bool):
    def build(evidence):
        n = len(evidence)
        meta = {"id": st.sampled_from(["dev00001", "dev00002", "dev00003"]), "claim_title": words(max_size=10),
                "claim_section": words(max_size=10),
                "chunk_idx": st.lists(st.integers(0, 60), min_size=n, max_size=n)}
        if oracle:
            meta["oracle_idx"] = st.lists(st.integers(0, 60), min_size=1, max_size=2)
        return st.fixed_dictionaries({"label": st.sampled_from(labels), "claim": words(), "evidence": st.just(evidence),
                                      "meta": st.fixed_dictionaries(meta)})
    # evidence sentences may be empty strings (19 in the official files): kept as they are
    return st.lists(st.one_of(words(), st.just("")), min_size=1, max_size=2).flatmap(build)


def wice_key(record):
    return record["meta"]["id"], tuple(record["meta"]["chunk_idx"])


WICE_FIELDS = [Field("label", "label"), Field("claim", "text"), Field("evidence", "list"),
               Field("evidence.0", "text", required=False), Field("meta", "object"), Field("meta.id", "id"),
               # in every official row, but optional for the reader (typed where present)
               Field("meta.claim_title", "text", required=False), Field("meta.claim_section", "text", required=False),
               Field("meta.chunk_idx", "list"),
               Field("meta.chunk_idx.0", "int", required=False)]


def wice_expect(records):
    return [(r["claim"], tuple(r["evidence"]), r["label"], r["meta"]["id"], tuple(r["meta"]["chunk_idx"]),
             tuple(r["meta"].get("oracle_idx", ()))) for r in records]


def wice_summary(rows):
    return [(w.claim, w.evidence, w.label, w.id, w.chunk_idx, w.oracle_idx) for w in rows]


WICE = ReaderSpec(
    "wice (supported rows)", nli.parse_wice, JsonLines(),
    unique_by(wice_key, wice_record(["supported", "partially_supported"], oracle=True)),
    WICE_FIELDS + [Field("meta.oracle_idx", "list"), Field("meta.oracle_idx.0", "int", required=False)],
    expect=wice_expect, summary=wice_summary,
    # a row's key is its meta (meta.id and meta.chunk_idx): the official files repeat 13 rows per split,
    # kept and counted in .irregular
    id_field="meta", filename="dev.jsonl", counted_ok=("duplicate id",))
WICE_NOT_SUPPORTED = ReaderSpec(
    "wice (not_supported rows)", nli.parse_wice, JsonLines(),
    unique_by(wice_key, wice_record(["not_supported"], oracle=False)),
    WICE_FIELDS, expect=wice_expect, summary=wice_summary, id_field="meta", filename="test.jsonl",
    counted_ok=("duplicate id",))

# --- FraCaS ------------------------------------------------------------------------------------------

FRACAS = ReaderSpec(
    "fracas sentences", nli.parse_fracas_sentences, Lines(), st.lists(words(), min_size=1, max_size=5),
    [],                                                  # a line is a sentence: no field to corrupt
    expect=lambda rs: [(number, text) for number, text in enumerate(rs, start=1)],
    summary=lambda ss: [(s.line, s.text) for s in ss], filename="fracas_1_80.raw.txt", json_typed=False)

# --- Climate-FEVER and EX-FEVER -----------------------------------------------------------------------

vote = st.one_of(st.none(), st.sampled_from(misc_fever.CLIMATE_EVIDENCE_LABELS))
climate_evidence = st.tuples(words(max_size=12), st.integers(0, 300)).flatmap(lambda t: st.fixed_dictionaries({
    "evidence_id": st.just(f"{t[0]}:{t[1]}"), "evidence_label": st.sampled_from(misc_fever.CLIMATE_EVIDENCE_LABELS),
    "article": st.just(t[0]), "evidence": words(), "entropy": st.floats(0, 2, allow_nan=False),
    # the official votes: five, the first two or more given, the rest null
    "votes": st.lists(st.sampled_from(misc_fever.CLIMATE_EVIDENCE_LABELS), min_size=2, max_size=5)
               .map(lambda v: v + [None] * (5 - len(v))),
}))
climate_record = st.fixed_dictionaries({
    "claim_id": st.integers(0, 10**4).map(str), "claim": words(),
    "claim_label": st.sampled_from(misc_fever.CLIMATE_CLAIM_LABELS),
    "evidences": st.lists(climate_evidence, min_size=1, max_size=5),
})
CLIMATE_FEVER = ReaderSpec(
    "climate-fever", misc_fever.parse_climate_fever, JsonLines(), unique_by("claim_id", climate_record),
    [Field("claim_id", "id"), Field("claim", "text"), Field("claim_label", "label"), Field("evidences", "list"),
     Field("evidences.0", "object", required=False), Field("evidences.0.evidence_id", "text"),
     Field("evidences.0.evidence_label", "label"), Field("evidences.0.article", "text"),
     Field("evidences.0.evidence", "text"), Field("evidences.0.entropy", "float"), Field("evidences.0.votes", "list"),
     Field("evidences.0.votes.0", "label", required=False)],
    expect=lambda rs: [(r["claim_id"], r["claim"], r["claim_label"],
                        [(e["evidence_id"], e["article"], e["evidence"], e["evidence_label"], e["entropy"],
                          [v for v in e["votes"] if v is not None]) for e in r["evidences"]]) for r in rs],
    summary=lambda cs: [(c.claim_id, c.claim, c.label, [(e.evidence_id, e.article, e.sentence, e.label, e.entropy,
                                                          e.votes) for e in c.evidences]) for c in cs],
    id_field="claim_id", filename="climate-fever.jsonl")

EX_FEVER_HEADER = ("claim", "explanation", "label", "golden entity", "mention", "result entity", "discard number")
titles = st.lists(words(max_size=12, alphabet=string.ascii_letters + string.digits + " ().'"), min_size=1, max_size=3,
                  unique=True)
ex_fever_record = titles.flatmap(lambda ts: st.fixed_dictionaries({
    "claim": words(), "explanation": words(), "label": st.sampled_from(misc_fever.EX_FEVER_LABELS),
    "golden entity": st.just(repr([t.replace(" ", "_") for t in ts])),
    "mention": st.just(repr(ts[1:])), "result entity": st.sampled_from(["", repr([ts[0].replace(" ", "_")])]),
    "discard number": st.sampled_from(["", "2.0", "3.0"]), "_titles": st.just(ts),
}))
EX_FEVER = ReaderSpec(
    "ex-fever", misc_fever.parse_ex_fever, Csv(EX_FEVER_HEADER), st.lists(ex_fever_record, min_size=2, max_size=5),
    [Field("claim", "text"), Field("explanation", "text"), Field("label", "label"), Field("golden entity", "text")],
    expect=lambda rs: [(row, r["claim"], r["explanation"], r["label"], list(r["_titles"]))
                       for row, r in enumerate(rs, start=1)],
    summary=lambda cs: [(c.row, c.claim, c.explanation, c.label, c.gold_titles) for c in cs],
    filename="test.csv", json_typed=False)      # no id: a record is its data row

SPECS = [FEWSHOT_TARGETS, FEWSHOT_PROCESSED, SILVER_PROOFS, MED, MED_2HOP, WICE, WICE_NOT_SUPPORTED, FRACAS,
         CLIMATE_FEVER, EX_FEVER]


test_valid_files_round_trip, test_every_corruption_is_refused_or_counted = property_tests(SPECS)
