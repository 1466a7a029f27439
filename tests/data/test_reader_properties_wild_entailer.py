"""Property-based tests of the readers of "claims in the wild" and Entailer (ClaimDecomp's chats and
search cache, OpenBookQA, QASC, EntailmentBank, WorldTree).

For each reader: generated valid files round-trip, and every single corruption is refused with a
:class:`~proofbook.data.textfile.DataError` naming the file, line and field, or counted -- never accepted
silently, never a raw ``KeyError``/``JSONDecodeError``/``csv.Error`` (see ``reader_properties.py``).

Two readers need more than the framework's stock formats:

* ``parse_search_cache(path, example_ids)`` pairs line *i* with ``example_ids[i]``: the spec's
  ``setup`` writes the ids next to the file and its ``parse`` passes them on;
* the WorldTree file is one JSON object ``{fact id: text}``, not a list of records:
  :class:`FactObject` writes a record ``{"id", "text"}`` as one entry per line, and because the reader
  names a fact by its id (``field 'f2'``), :func:`check_keyed_corruptions` expects the fact id of the
  corrupted entry as the field of the error.
"""
import json
import re
import string
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proofbook.data import entailmentbank, politifact, science_qa
from proofbook.data.politifact_search import parse_cached_subquestions, parse_search_cache
from proofbook.data.textfile import DataError

from tests.data.reader_properties import (
    READERS, Field, Format, JsonLines, ReaderSpec, Tsv, byte_corruptions, field_corruptions, identifiers,
    property_tests, refused_or_counted, round_trip, unique_by, words,
)

pytestmark = pytest.mark.unit

# --- ClaimDecomp: fine-tuning chats, search cache, cached subquestions ---------------------------

#: a question that survives ``split_question_list`` and ``clean_question`` unchanged: a capital, small
#: letters, a question mark (no comma, colon, digit or bullet)
question = words(max_size=20, alphabet="abcdefgh ").map(lambda q: q[0].upper() + q[1:] + "?")
questions = st.lists(question, min_size=1, max_size=3, unique=True)
MONTHS = ("January", "March", "May", "July", "September", "December")
venue = st.tuples(st.sampled_from(MONTHS), st.integers(1, 28), st.integers(2000, 2023),
                  words(max_size=12, alphabet=string.ascii_lowercase + " ")).map(
    lambda t: f"stated on {t[0]} {t[1]}, {t[2]} in {t[3]}:")

finetune_record = st.tuples(words(max_size=12, alphabet=string.ascii_letters + " "), venue, words(), questions).map(
    lambda t: {"messages": [
        {"role": "system", "content": "Assume you are a fact-checker, generate several yes or no questions."},
        {"role": "user", "content": f"{t[0]} {t[1]}\n{t[2]}"},
        {"role": "assistant", "content": ", ".join(t[3])}]})


def finetune_expect(records):
    out = []
    for r in records:
        head, claim = r["messages"][1]["content"].split("\n", 1)
        person, venue_part = head.split(" stated on ", 1)
        out.append((person, "stated on " + venue_part, claim, r["messages"][2]["content"].split(", ")))
    return out


FINETUNE = ReaderSpec(
    "claimdecomp finetune chats", politifact.parse_claimdecomp_finetune, JsonLines(),
    st.lists(finetune_record, min_size=2, max_size=4),
    [Field("messages", "list"), Field("messages.0.role", "label"), Field("messages.0.content", "text"),
     Field("messages.1.role", "label"), Field("messages.1.content", "text"),
     Field("messages.2.role", "label"), Field("messages.2.content", "text")],
    expect=finetune_expect,
    summary=lambda chats: [(c.person, c.venue, c.claim, c.subquestions) for c in chats],
    filename="finetune_val.jsonl")

hit = st.fixed_dictionaries({"question": question, "url": identifiers("https://site.example/"),
                             "title": words(max_size=16), "snippet": words()})
hit_list = st.lists(hit, min_size=1, max_size=3, unique_by=lambda h: (h["question"], h["url"]))
IDS_FILE = "example_ids.json"


def example_ids(count: int) -> list[int]:
    """ClaimDecomp ids are large integers; line i of a cache file belongs to id i of the claims file."""
    return [5088301214328986128 + 7919 * i for i in range(count)]


def write_example_ids(folder: Path, records: list) -> None:
    (folder / IDS_FILE).write_text(json.dumps(example_ids(len(records))), encoding="utf-8")


def parse_search_cache_with_ids(path: Path):
    return parse_search_cache(path, json.loads((path.parent / IDS_FILE).read_text(encoding="utf-8")))


SEARCH_CACHE = ReaderSpec(
    "claimdecomp search cache", parse_search_cache_with_ids, JsonLines(), st.lists(hit_list, min_size=2, max_size=4),
    [Field("0.question", "text"), Field("0.url", "text"), Field("0.title", "text"), Field("0.snippet", "text")],
    expect=lambda rs: [(i, [(h["question"], h["url"], h["title"], h["snippet"]) for h in r])
                       for i, r in zip(example_ids(len(rs)), rs)],
    summary=lambda cache: [(i, [(h.question, h.url, h.title, h.snippet) for h in hits]) for i, hits in cache.items()],
    filename="websites_gpt_icl.jsonl", setup=write_example_ids,
    # documented: a hit with an empty title or snippet is kept and counted in .irregular
    counted_ok=("empty 0.title", "empty 0.snippet"))

claim_id = st.integers(0, 2**63 - 1)
icl_record = st.fixed_dictionaries({"example_id": claim_id, "claim": words(), "questions": questions.map("\n".join)})
SUBQUESTIONS_ICL = ReaderSpec(
    "cached subquestions (icl)", parse_cached_subquestions, JsonLines(), unique_by("example_id", icl_record),
    [Field("example_id", "int"), Field("questions", "text")],
    expect=lambda rs: [(r["example_id"], r["questions"].split("\n")) for r in rs],
    summary=lambda cached: list(cached.items()), id_field="example_id", filename="subquestions_icl_gpt.jsonl",
    # documented: an empty generation is kept with no question and counted in .irregular
    counted_ok=("empty questions",))

finetuned_record = st.fixed_dictionaries({"example_id": claim_id, "prompt": words(),
                                          "subquestions": questions.map(lambda qs: [", ".join(qs)])})
SUBQUESTIONS_FINETUNED = ReaderSpec(
    "cached subquestions (fine-tuned)", parse_cached_subquestions, JsonLines(),
    unique_by("example_id", finetuned_record),
    [Field("example_id", "int"), Field("subquestions", "list"), Field("subquestions.0", "text")],
    expect=lambda rs: [(r["example_id"], r["subquestions"][0].split(", ")) for r in rs],
    summary=lambda cached: list(cached.items()), id_field="example_id", filename="subquestions_gpt_finetune.jsonl",
    # documented: an empty generation is kept with no question and counted in .irregular
    counted_ok=("empty subquestions.0", "drop subquestions.0"))

# --- OpenBookQA and QASC -------------------------------------------------------------------------

OBQA_HEADER = ("ID", "Question Stem", "Choices", "Complete Question", "Answer Key")
option_texts = st.lists(words(max_size=12), min_size=4, max_size=4)


def obqa_row(qid, stem, texts, key):
    choices = " ".join(f"({label}) {text}" for label, text in zip("ABCD", texts))
    return {"ID": qid, "Question Stem": stem, "Choices": choices, "Complete Question": f"{stem} {choices}",
            "Answer Key": key}


obqa_record = st.tuples(st.tuples(st.integers(1, 20), st.integers(1, 3000)).map(lambda t: f"{t[0]}-{t[1]}"),
                        words(), option_texts, st.sampled_from("ABCD")).map(lambda t: obqa_row(*t))
OBQA = ReaderSpec(
    "openbookqa", science_qa.parse_obqa_file, Tsv(OBQA_HEADER), unique_by("ID", obqa_record),
    [Field("ID", "id"), Field("Question Stem", "text"), Field("Choices", "text"), Field("Answer Key", "label")],
    expect=lambda rs: [(r["ID"], r["Question Stem"], re.findall(r"\(([A-D])\) (.*?)(?= \([A-D]\) |$)", r["Choices"]),
                        r["Answer Key"]) for r in rs],
    summary=lambda qs: [(q.id, q.stem, [(o.label, o.text) for o in q.options], q.answer_key) for q in qs],
    id_field="ID", filename="dev.tsv", json_typed=False)

answer_key_record = st.fixed_dictionaries({"id": identifiers(), "answerKey": st.sampled_from("ABCD")})
ANSWER_KEYS = ReaderSpec(
    "openbookqa leaderboard answer keys", science_qa.parse_answer_keys, JsonLines(),
    unique_by("id", answer_key_record), [Field("id", "id"), Field("answerKey", "label")],
    expect=lambda rs: [(r["id"], r["answerKey"]) for r in rs], summary=lambda keys: list(keys.items()),
    id_field="id", filename="test_question-answers_aristo-leaderboard.jsonl")

QASC_LABELS = "ABCDEFGH"
qasc_record = st.tuples(identifiers(), words(), st.lists(words(max_size=12), min_size=8, max_size=8),
                        st.sampled_from(QASC_LABELS), st.lists(words(), min_size=3, max_size=3)).map(
    lambda t: {"id": t[0], "question": {"stem": t[1], "choices": [{"text": text, "label": label}
                                                                  for text, label in zip(t[2], QASC_LABELS)]},
               "answerKey": t[3], "fact1": t[4][0], "fact2": t[4][1], "combinedfact": t[4][2],
               "formatted_question": t[1] + " " + " ".join(f"({label}) {text}" for label, text in zip(QASC_LABELS, t[2]))})
QASC = ReaderSpec(
    "qasc", science_qa.parse_qasc_file, JsonLines(), unique_by("id", qasc_record),
    [Field("id", "id"), Field("question", "object"), Field("question.stem", "text"),
     Field("question.choices", "list"), Field("question.choices.0.text", "text"),
     Field("question.choices.0.label", "label"), Field("answerKey", "label"),
     Field("fact1", "text", required=False), Field("fact2", "text", required=False),
     Field("combinedfact", "text", required=False)],
    expect=lambda rs: [(r["id"], r["question"]["stem"], [(c["label"], c["text"]) for c in r["question"]["choices"]],
                        r["answerKey"], (r["fact1"], r["fact2"]), r["combinedfact"]) for r in rs],
    summary=lambda qs: [(q.id, q.stem, [(o.label, o.text) for o in q.options], q.answer_key, q.facts, q.combined_fact)
                        for q in qs],
    id_field="id", filename="dev.jsonl")

# --- EntailmentBank ------------------------------------------------------------------------------

#: sentence text without the syntax of contexts ("sent1:"), proofs ("&", "->", ";") or slots ("$", "=")
TREE_ALPHABET = string.ascii_lowercase + string.digits + " .,'-/"


@st.composite
def entailment_tree(draw):
    """A valid tree: 2-5 context sentences, 0-2 intermediate steps, a last step to the hypothesis."""
    sentences = draw(st.lists(words(alphabet=TREE_ALPHABET), min_size=2, max_size=5))
    known = [f"sent{i}" for i in range(1, len(sentences) + 1)]
    steps = []
    for number in range(1, draw(st.integers(0, 2)) + 2):
        premises = draw(st.lists(st.sampled_from(known), min_size=1, max_size=3, unique=True))
        steps.append(premises)
        known.append(f"int{number}")
    texts = draw(st.lists(words(alphabet=TREE_ALPHABET), min_size=len(steps) - 1, max_size=len(steps) - 1))
    proof = "".join(f"{' & '.join(premises)} -> int{n}: {texts[n - 1]}; " for n, premises in enumerate(steps[:-1], 1))
    proof += f"{' & '.join(steps[-1])} -> hypothesis; "
    return {"context": " ".join(f"sent{i}: {s}" for i, s in enumerate(sentences, 1)), "proof": proof,
            "question": draw(words()), "answer": draw(words(max_size=12)), "hypothesis": draw(words())}


def expected_context(context: str) -> dict:
    parts = re.split(r"(?:^| )(sent\d+): ", context)
    return dict(zip(parts[1::2], parts[2::2]))


def expected_steps(proof: str, hypothesis: str) -> list[tuple]:
    steps = []
    for part in proof.rstrip("; ").split("; "):
        premises, conclusion = part.split(" -> ")
        node, _, text = conclusion.partition(": ")
        steps.append((tuple(premises.split(" & ")), node, text or hypothesis))
    return steps


def expected_depth(steps: list[tuple]) -> int:
    depth = {}
    for premises, node, _ in steps:
        depth[node] = 1 + max(depth.get(p, 0) for p in premises)
    return depth["hypothesis"]


def tree_summary(trees):
    return [(t.id, t.question, t.answer, t.hypothesis, t.context, [(s.premises, s.conclusion, s.conclusion_text)
                                                                   for s in t.steps], t.depth_of_proof, t.length_of_proof)
            for t in trees]


tree_record = st.tuples(identifiers("Mercury_"), entailment_tree()).map(lambda t: {
    "id": t[0], **t[1], "full_text_proof": "[BECAUSE] ...",
    "depth_of_proof": expected_depth(expected_steps(t[1]["proof"], t[1]["hypothesis"])),
    "length_of_proof": t[1]["proof"].count("->"), "meta": {"hypothesis_id": "int1"}})


def tree_expect(records):
    out = []
    for r in records:
        steps = expected_steps(r["proof"], r["hypothesis"])
        out.append((r["id"], r["question"], r["answer"], r["hypothesis"], expected_context(r["context"]), steps,
                    expected_depth(steps), len(steps)))
    return out


ENTAILMENTBANK = ReaderSpec(
    "entailmentbank trees", entailmentbank.parse_entailmentbank_file, JsonLines(), unique_by("id", tree_record),
    [Field("id", "id"), Field("context", "text"), Field("question", "text"), Field("answer", "text"),
     Field("hypothesis", "text"), Field("proof", "text"), Field("depth_of_proof", "int", required=False),
     Field("length_of_proof", "int", required=False), Field("meta", "object", required=False)],
    expect=tree_expect, summary=tree_summary, id_field="id", filename="dataset__task_1__dev.jsonl",
    # documented: the official test files repeat one id (Mercury_SC_405304, two trees); kept and counted
    counted_ok=("duplicate id",))

angles_record = st.tuples(identifiers("Mercury_"), entailment_tree()).map(lambda t: {
    "input": f"$proof$ ; $question$ = {t[1]['question']} ; $answer$ = {t[1]['answer']} ; "
             f"$hypothesis$ = {t[1]['hypothesis']} ; $context$ = {t[1]['context']}",
    "output": f"$proof$ = {t[1]['proof']}", "angle": [["question", "answer", "hypothesis", "context"], ["proof"]],
    "id": t[0]})


def angles_expect(records):
    out = []
    for r in records:
        slots = dict(part.split(" = ", 1) for part in re.split(r" ; (?=\$)", r["input"])[1:])
        steps = expected_steps(r["output"].split(" = ", 1)[1], slots["$hypothesis$"])
        out.append((r["id"], slots["$question$"], slots["$answer$"], slots["$hypothesis$"],
                    expected_context(slots["$context$"]), steps, expected_depth(steps), len(steps)))
    return out


ENTAILMENTBANK_TRAIN = ReaderSpec(
    "entailmentbank text-to-text train", entailmentbank.parse_entailmentbank_train_file, JsonLines(),
    unique_by("id", angles_record), [Field("id", "id"), Field("input", "text"), Field("output", "text")],
    expect=angles_expect, summary=tree_summary, id_field="id",
    filename="data__processed_data__angles__task_1__train.jsonl",
    # documented: the official train files repeat 5 ids (one question, two answers); kept and counted
    counted_ok=("duplicate id",))


class FactObject(Format):
    """WorldTree's one JSON object ``{fact id: text}``, written one entry a line between ``{`` and ``}``.

    A record is ``{"id": fact id, "text": text}``; a record without its text is written with the value
    ``null`` (an entry of an object cannot lose its value and stay JSON).  Entry ``i`` is on line ``i + 2``.
    """

    name = "json-object"

    @staticmethod
    def entry(record: dict) -> str:
        return f"{json.dumps(record['id'], ensure_ascii=False)}: {json.dumps(record.get('text'), ensure_ascii=False)}"

    def dump(self, records):
        return "{\n" + ",\n".join(self.entry(r) for r in records) + "\n}\n"

    def line_of(self, index, records):
        return index + 2

    def last_text(self, records):
        return self.entry(records[-1])

    def record_span(self, records):
        whole = self.dump(records)
        start = whole.rindex(self.last_text(records))
        return start, start + len(self.last_text(records))


fact_id = st.one_of(st.integers(1, 5000).map(lambda n: f"ET_addon:{n}"),
                    st.lists(st.text("0123456789abcdef", min_size=4, max_size=4), min_size=4, max_size=4).map("-".join))
fact_record = st.fixed_dictionaries({"id": fact_id, "text": words().filter(lambda t: t != "DUMMY")})
WORLDTREE = ReaderSpec(
    "worldtree facts", entailmentbank.parse_worldtree_file, FactObject(), unique_by("id", fact_record),
    [Field("text", "text")], expect=lambda rs: [(r["id"], r["text"]) for r in rs],
    summary=lambda facts: list(facts.items()), id_field="id",
    filename="supporting_data__worldtree_corpus_sentences_extended.json")


def key_on_line(content: str | bytes, line: int) -> str:
    """The fact id of the entry on ``line`` of a :class:`FactObject` file."""
    text = content.decode("utf-8") if isinstance(content, bytes) else content
    return json.JSONDecoder().raw_decode(text.split("\n")[line - 1])[0]


def check_keyed_corruptions(spec: ReaderSpec, folder: Path, records: list, draw) -> None:
    """The framework's corruptions; an error inside an entry must name its fact id as the field."""
    for corruption in field_corruptions(spec, records, draw):
        corruption.field = key_on_line(corruption.content, corruption.line)
        refused_or_counted(spec, folder, records, corruption)
    for corruption in byte_corruptions(spec, records, draw):
        refused_or_counted(spec, folder, records, corruption)


SPECS = [FINETUNE, SEARCH_CACHE, SUBQUESTIONS_ICL, SUBQUESTIONS_FINETUNED, OBQA, ANSWER_KEYS, QASC, ENTAILMENTBANK,
         ENTAILMENTBANK_TRAIN]

test_valid_files_round_trip, test_every_corruption_is_refused_or_counted = property_tests(SPECS)


# WorldTree: the same two properties; its corruption check expects the fact id as the field (see above)

@READERS
@given(records=WORLDTREE.records)
def test_worldtree_valid_files_round_trip(records):
    with tempfile.TemporaryDirectory() as folder:
        round_trip(WORLDTREE, Path(folder), records)


@READERS
@given(records=WORLDTREE.records, data=st.data())
def test_worldtree_every_corruption_is_refused_or_counted(records, data):
    with tempfile.TemporaryDirectory() as folder:
        check_keyed_corruptions(WORLDTREE, Path(folder), records, data.draw)


# --- faults the generated corruptions do not make ------------------------------------------------

def error_of(parse, path: Path) -> DataError:
    with pytest.raises(DataError) as err:
        parse(path)
    assert err.value.path == path
    return err.value


def write_text(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


HITS = json.dumps([{"question": "Is A true?", "url": "https://a.example/1", "title": "A", "snippet": "A is so."}])


def test_search_cache_example_id_given_twice(tmp_path):
    path = write_text(tmp_path / "websites_gpt_icl.jsonl", f"{HITS}\n{HITS}\n{HITS}\n")
    err = error_of(lambda p: parse_search_cache(p, [5, 9, 5]), path)
    assert (err.line, err.field) == (3, "example_id")


def test_search_cache_blank_line_and_line_count(tmp_path):
    path = write_text(tmp_path / "websites_gpt_icl.jsonl", f"{HITS}\n\n{HITS}\n")
    assert error_of(lambda p: parse_search_cache(p, [5, 9, 11]), path).line == 2
    path = write_text(tmp_path / "websites_gpt_icl.jsonl", f"{HITS}\n{HITS}\n")
    assert error_of(lambda p: parse_search_cache(p, [5, 9, 11]), path).line is None


def chat_line(*roles: str) -> str:
    contents = {"system": "Be a fact-checker.", "user": "Jane Roe stated on May 2, 2012 in a mailer:\nTaxes doubled.",
                "assistant": "Did taxes rise?"}
    return json.dumps({"messages": [{"role": role, "content": contents[role]} for role in roles]})


def test_finetune_chat_with_a_role_twice(tmp_path):
    good = chat_line("system", "user", "assistant")
    path = write_text(tmp_path / "finetune_train.jsonl", f"{good}\n{chat_line('system', 'user', 'user', 'assistant')}\n")
    err = error_of(politifact.parse_claimdecomp_finetune, path)
    assert (err.line, err.field) == (2, "messages[2].role")


def test_cached_subquestions_all_preamble_is_counted(tmp_path):
    path = write_text(tmp_path / "subquestions_icl_mixtral.jsonl",
                      json.dumps({"example_id": 5, "claim": "c", "questions": "Is it so?"}) + "\n"
                      + json.dumps({"example_id": 9, "claim": "c", "questions": " For the claim about X:\n"}) + "\n")
    cached = parse_cached_subquestions(path)
    assert cached == {5: ["Is it so?"], 9: []} and cached.irregular.counts["no question"] == 1


def test_obqa_without_answer_key_column(tmp_path):
    header = "\t".join(OBQA_HEADER[:4])
    row = "1-1\tWhat is hard?\t(A) a rock (B) a cloud (C) mist (D) fog\tWhat is hard? (A) a rock (B) a cloud"
    path = write_text(tmp_path / "test.tsv", f"{header}\n{row}\n")
    err = error_of(science_qa.parse_obqa_file, path)
    assert (err.line, err.field) == (1, "Answer Key")
    answers = write_text(tmp_path / "keys.jsonl", json.dumps({"id": "1-1", "answerKey": "A"}) + "\n")
    assert science_qa.parse_obqa_file(path, answers)[0].answer_text == "a rock"


@pytest.mark.parametrize("content, line, field", [
    ('{"f1": "ice is cold", "f2": "snow is cold", "f1": "ice is hard"}', 1, "f1"),    # the official one-line form
    ('{\n"f1": "ice is cold",\n"f2": "snow is cold",\n"f1": "ice is hard"\n}', 4, "f1"),
    ('{\n"f1": "ice is cold",\n" ": "snow is cold"\n}', 3, "fact id"),
    ('{\n"f1": "ice is cold",\n"f2": NaN\n}', 3, None),
    ('{\n"f1": "ice is cold",\n"f2": "snow is cold"\n}\n{"f3": "x"}', 5, None),
    ('{\n"f1": "ice is cold",\n"f2": "snow is cold",\n}', 4, None),
    ('{}', None, None),
])
def test_worldtree_faults_name_their_line(tmp_path, content, line, field):
    err = error_of(entailmentbank.parse_worldtree_file, write_text(tmp_path / "wt.json", content))
    assert (err.line, err.field) == (line, field), str(err)


def test_entailmentbank_empty_proof_is_kept_only_without_a_length(tmp_path):
    tree = {"id": "t1", "context": "sent1: ice is cold sent2: snow is ice", "question": "Is snow cold?",
            "answer": "yes", "hypothesis": "snow is cold", "proof": ""}
    path = write_text(tmp_path / "dataset__task_3__dev.jsonl", json.dumps(tree) + "\n")
    assert entailmentbank.parse_entailmentbank_file(path)[0].steps == ()
    path = write_text(tmp_path / "dataset__task_1__dev.jsonl", json.dumps({**tree, "length_of_proof": 1}) + "\n")
    err = error_of(entailmentbank.parse_entailmentbank_file, path)
    assert (err.line, err.field) == (1, "proof")
