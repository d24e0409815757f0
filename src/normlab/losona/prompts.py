"""Render LoSoNA's subject and judge prompts from the verbatim Appendix C templates.

The templates live in ``prompts/*.txt`` with the paper's placeholder names, so a
diff against the paper is a diff of two texts. Only ``{lower_snake}``
placeholders that we fill are substituted; every other brace (the judge's JSON
shape) is left as printed. Two rendering choices the paper leaves implicit:
- the cast line ``- {name}: {bio}`` is repeated once per cast member;
- under ``naive`` (empty condition prefix) the prefix line and the blank line
  after it are dropped, so the prompt has no run of empty lines.
"""

from __future__ import annotations

from normlab.core.chat import render_transcript
from normlab.core.templates import SINGLE_BRACES, PromptSet
from normlab.losona.schemas import Scenario

CONDITIONS = ("naive", "elicitor_only", "norm_informed", "style_adaptation")
"""The four reported prompt conditions (paper §5.1), in the paper's order."""

DEVELOPMENT_CONDITIONS = ("oracle",)
"""Conditions that exist for development only and never enter a headline table."""

CAST_LINE = "- {name}: {bio}"


PROMPTS = PromptSet("normlab.losona", SINGLE_BRACES)
"""LoSoNA's prompt files, with the paper's ``{name}`` placeholders."""
load_template = PROMPTS.load
fill = PROMPTS.fill


def condition_prefix(condition: str, elicitor_actor: str) -> str:
    if condition not in CONDITIONS + DEVELOPMENT_CONDITIONS:
        raise ValueError(f"unknown condition {condition!r}; choose from {', '.join(CONDITIONS)}")
    return fill(load_template(f"condition_{condition}"), {"elicitor_actor": elicitor_actor})


def render_subject_prompt(
    scenario: Scenario, condition: str, norms: str = "", instruction: str | None = None
) -> str:
    """The subject-visible prompt: never the norm, its statement, demos or notes.

    ``norms``: a norm-learning subject's compliance block (its qualified norms), placed after
    the messages and before "Your next message:", where the reply is asked for.
    ``instruction``: a ``file:`` prompt variant's wording in place of ``subject_base.txt``
    (``normlab.losona.variants``), filled the same way.
    """
    template = load_template("subject_base") if instruction is None else instruction
    cast = "\n".join(
        CAST_LINE.replace("{name}", member.name).replace("{bio}", member.bio)
        for member in scenario.cast
    )
    template = template.replace(CAST_LINE, "{cast_lines}")
    prefix = condition_prefix(condition, scenario.elicitor.actor)
    if not prefix:
        template = template.replace("{condition_prefix}\n\n", "")
    return fill(
        template,
        {
            "subject": scenario.subject,
            "subject_bio": scenario.subject_bio,
            "channel_description": scenario.channel_description,
            "venue": scenario.venue,
            "cast_lines": cast,
            "condition_prefix": prefix,
            "prior_transcript_plus_elicitor": render_transcript(scenario.visible_turns)
            + (f"\n\n{norms}" if norms else ""),
        },
    )


JUDGE_ADDENDA = ("default", "none")
"""``default``: the verbatim Appendix C prompt plus our edge-case instructions (§7 says the
paper's judge had such instructions but does not print them); ``none``: the bare prompt."""


def render_judge_prompt(scenario: Scenario, subject_response: str, addenda: str = "default") -> str:
    """The judge prompt: the norm statement, examples, transcript and the judged message."""
    example = scenario.judge_example()
    elicitor = scenario.elicitor
    prompt = fill(
        load_template("judge"),
        {
            "norm_statement": scenario.norm_statement,
            "example_elicitor": example.elicitor if example else "(none)",
            "example_compliant_response": example.compliant if example else "(none)",
            "example_breaching_response": example.breaching if example else "(none)",
            "prior_transcript": render_transcript(scenario.prior_turns),
            "elicitor_actor": elicitor.actor,
            "elicitor_content": elicitor.content,
            "subject": scenario.subject,
            "subject_response": subject_response,
        },
    )
    if addenda == "none":
        return prompt
    return f"{prompt}\n\n{load_template('judge_addenda')}"
