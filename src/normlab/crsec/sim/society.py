"""Loading a society file (JSON or YAML): the agents, places, norms at stake and the clock.

Errors name the file and the field (``hobbs.yaml: field 'agents.3.role': …``) and
exit 2, so a researcher can set up another society without reading a traceback.
The shipped society is Hobbs Cafe (``data/hobbs_cafe.json``): the paper's ten
agents with their descriptions verbatim (Figures 5–6).
"""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path

from normlab.core.errors import InputError
from normlab.core.jsonio import validate_row
from normlab.core.yamlio import read_document
from normlab.crsec.sim.schemas import AgentSpec, Society

HOBBS_CAFE = Path(str(files("normlab.crsec") / "data" / "hobbs_cafe.json"))
"""The paper's society (Appendix A): the default of ``crsec run --society``."""


def load_society(path: Path = HOBBS_CAFE) -> Society:
    """A validated society, or an [`InputError`][normlab.core.InputError] naming the file and
    field."""
    data = read_document(path)
    if not isinstance(data, dict):
        raise InputError(path, "a society file holds one object (name, places, norms, agents…)")
    return validate_row(Society, data, path)


SURNAMES = [
    "Adams", "Baker", "Bennett", "Brooks", "Carter", "Collins", "Cooper", "Diaz", "Edwards",
    "Evans", "Fischer", "Foster", "Garcia", "Gray", "Green", "Hall", "Harris", "Hayes", "Hughes",
    "Ito", "Jensen", "Kelly", "Khan", "Kim", "King", "Larsen", "Lee", "Lewis", "Long", "Martin",
    "Meyer", "Miller", "Morgan", "Murphy", "Nakamura", "Nguyen", "Novak", "Ortiz", "Park", "Patel",
    "Perez", "Price", "Reed", "Reyes", "Rivera", "Roberts", "Ross", "Russell", "Sanders", "Silva",
    "Singh", "Smith", "Sullivan", "Tanaka", "Taylor", "Torres", "Turner", "Walker", "Ward",
    "Watson", "White", "Wood", "Young",
]  # fmt: skip
"""Surnames for copies of a society's agents (none is one of Hobbs Cafe's)."""


def _surname(index: int) -> str:
    """The ``index``-th new surname; past the list, two joined (Adams-Baker), still unique."""
    if index < len(SURNAMES):
        return SURNAMES[index]
    first, second = divmod(index - len(SURNAMES), len(SURNAMES))
    return f"{SURNAMES[first % len(SURNAMES)]}-{SURNAMES[second]}"


def _renamed(agent: AgentSpec, surnames: dict[str, str]) -> AgentSpec:
    """``agent`` with every surname in ``surnames`` replaced wherever it is written."""
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, surnames)) + r")\b")

    def rename(text: str) -> str:
        return pattern.sub(lambda match: surnames[match.group(1)], text)

    return agent.model_copy(
        update={
            "name": rename(agent.name),
            "description": rename(agent.description),
            "daily_requirement": rename(agent.daily_requirement),
            "relationships": [rename(item) for item in agent.relationships],
        }
    )


def scaled_society(society: Society, agents: int) -> Society:
    """``society`` with ``agents`` agents: its own first, then copies of them in order.

    Copy *k* of the agents is the same people under new surnames, one per surname of the
    original (so families stay families), renamed everywhere they are written: names,
    descriptions, daily requirements and relationships, which point inside the copy.
    Roles, stances and traits are kept, so the share of norm entrepreneurs stays the
    same for whole copies. Fewer agents than the file's keep the first ones.
    """
    originals = society.agents
    surnames = list(dict.fromkeys(agent.name.split()[-1] for agent in originals))
    chosen: list[AgentSpec] = []
    for index in range(agents):
        copy, position = divmod(index, len(originals))
        agent = originals[position]
        if copy:
            first = (copy - 1) * len(surnames)
            agent = _renamed(
                agent, {old: _surname(first + number) for number, old in enumerate(surnames)}
            )
        chosen.append(agent)
    suffix = f" ({agents} agents)" if agents != len(originals) else ""
    return Society.model_validate(
        {**society.model_dump(), "name": society.name + suffix, "agents": chosen}
    )
