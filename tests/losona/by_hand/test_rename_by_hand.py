"""LoSoNA's ``rename:SEED`` worked by hand (issue 41 items 1, 3, 6): the judge reads the norm and
its examples with the same names as the transcript, and words stay words.

The paper's judge (Appendix C) is given "the norm statement", an example elicitor with a
compliant and a breaching response, and the transcript; a rename that changes the transcript's
names but not the norm's pairs a norm about Will with a chat in which nobody is called Will.
By hand, for the scenario below under ``rename:1``: Will → W, Nadia → N, Marcus → M (whatever
the bank draws); then the norm "When Will asks for an update, …" must read "When W asks …",
the example "Nadia, can you …" must read "N, can you …", the turn "Will this be sorted by the
end of May?" keeps "Will" (a modal before "this") and "May" (a month after "of"), and
"Dr. Okafor from payments" (no participant) is kept, title and all.
"""

from __future__ import annotations

from normlab.losona.schemas import Scenario
from normlab.losona.taxonomy import load_taxonomy
from normlab.losona.variants import renamed
from tests.losona.factory import clean_row


def test_the_judge_reads_the_renamed_norm_and_examples() -> None:
    row = clean_row()
    row["cast"] = [
        {"name": n, "bio": f"{n} works on checkout."} for n in ("Will", "Nadia", "Marcus")
    ]
    for turn in row["transcript"]:
        turn["actor"] = ("Will", "Nadia", "Marcus")[turn["turn_id"] % 3]
        turn["content"] = f"update {turn['turn_id']} on the flaky checkout build"
    row["transcript"][2]["content"] = "Will this be sorted by the end of May?"
    row["transcript"][3]["content"] = "ask Dr. Okafor from payments"
    row["transcript"][19]["content"] = "Tariq which port does the payments mock listen on?"
    row["norm_statement"] = "When Will asks for an update, the others answer with a date."
    row["judge_examples"] = {
        "elicitor": "Nadia, can you find out why the emails stopped?",
        "compliant": "by Friday, Will",
        "breaching": "no idea",
    }
    scenario = Scenario.model_validate(row)
    changed, renaming = renamed(scenario, 1, load_taxonomy())
    will, nadia = renaming.names["Will"], renaming.names["Nadia"]
    assert changed.norm_statement == (
        f"When {will} asks for an update, the others answer with a date."
    )
    example = changed.judge_examples
    assert example is not None
    assert example.elicitor == f"{nadia}, can you find out why the emails stopped?"
    assert example.compliant == f"by Friday, {will}"
    assert changed.transcript[2].content == "Will this be sorted by the end of May?"
    assert changed.transcript[3].content == "ask Dr. Okafor from payments"
    assert changed.transcript[2].actor == renaming.names[scenario.transcript[2].actor]
