"""LoSoNA's ``reorder:SEED``: the demonstration exchanges in another order, reply chains kept.

A LoSoNA demonstration is a turn inside a running chat, the answer to a request ("Grace can you
check …?" / "yep, will have an answer by 11:30"), and later turns lean on it ("frontend
timeout is 120s so it's not us", "same as Kwame above"). An order that puts an answer before
its request, or a reference before what it refers to, changes the test, not its wording. So:

- an exchange is a demonstration with the request it answers and every turn between them:
  the latest earlier turn of another member that addresses its author (the author's name,
  given or family name, with or without a title or accents, read as a rename reads names,
  first in the turn or before a comma, a question or "can you": "Chloe is in a meeting" is
  about her, not to her), else the turn just before it where that is another member's
  question ("can someone look at the logs?"); the replies straight after it that lean on it
  go with it, and exchanges that overlap move as one;
- a turn depends on an earlier one where it refers back to it ("above", "^", "same", "ditto"
  at its start: the turn just before; "as X said", "as X says", "like X mentioned", "same as
  X", "agree(d) with X", "+1 X", "per X", "ditto X", "X's point", "X is right": X's latest
  earlier turn), or where the two share a content word that at most ``DISTINCT_IN`` turns of
  the chat hold ("pdf": the pdf result leans on the pdf request);
- an order is kept only where every turn still comes after every turn it depends on.

Of the orders other than the paper's that keep every dependency, one is drawn with the seed;
a scenario that has none (fewer than two exchanges, or every other order breaks a chain) is
refused (``NotReorderable``), naming the scenario and the dependency the nearest order breaks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations
from random import Random

from normlab.core.chat import Turn
from normlab.core.renaming import Renaming, fold_offsets, name_parts, part_keys
from normlab.core.text import words
from normlab.losona.schemas import Scenario

DISTINCT_IN = 3
"""A content word held by at most this many turns ties them (more: it is the chat's topic)."""
MAX_EXCHANGES = 6
"""Orders are enumerated (6! = 720 at most); a scenario with more exchanges is refused."""
STOPWORDS = frozenset(
    ("the", "and", "for", "you", "your", "with", "that", "this", "are", "was", "but", "not",
     "can", "will", "have", "has", "had", "all", "any", "our", "out", "get", "got", "its",
     "it's", "just", "yes", "yep", "sure", "okay", "what", "when", "who", "how", "why",
     "there", "they", "them", "then", "than", "too", "also", "one", "from", "into", "about",
     "been", "being", "would", "could", "should", "did", "does", "doing", "done", "let",
     "lets", "let's", "ill", "i'll", "im", "i'm", "we", "were", "well", "know", "think",
     "today", "now", "still", "like", "some", "more", "less", "much", "very", "really",
     "thanks", "thank", "please", "pls", "lol", "btw", "fwiw", "ok", "good", "great", "fine",
     "right", "so", "if", "on", "in", "at", "of", "to", "is", "it", "be", "do", "me", "my",
     "us", "up", "by", "an", "or", "no", "as", "am", "he", "she", "his", "her", "him")
)  # fmt: skip
BACK_BEFORE = frozenset(("per", "ditto", "+1", "seconding", "seconded"))
"""A word right before a name that makes the turn lean on that person's last turn."""
BACK_PAIRS = frozenset(
    (("same", "as"), ("agree", "with"), ("agreed", "with"), ("agreeing", "with"), ("+1", "to"),
     ("with", "@"), ("as", "@"), ("like", "@"))
)  # fmt: skip
BACK_SAYING = frozenset(("said", "says", "mentioned", "suggested", "wrote", "noted", "put"))
"""After "as", "like" or "what" and a name: "as Javi said", "like Javi mentioned"."""
BACK_AFTER = frozenset((("'s", "point"), ("'s", "idea"), ("'s", "suggestion"), ("is", "right")))
ADDRESSING = frozenset(
    (",", ":", "?", "!", "can", "could", "would", "will", "pls", "please", "do", "are", "have",
     "any", "when", "did")
)  # fmt: skip
"""What follows a name that addresses its bearer ("Chloe, …", "Chloe can you …")."""
GREETING = frozenset(("hi", "hey", "hello", "yo", "ok", "thanks", "@", "and", "also", "oh"))
_BARE_BACK = re.compile(r"\babove\b|^\s*\^|^\s*\+1\s*$|^\s*(same|agreed|ditto|this)\b", re.I)
_TOKEN = re.compile(r"\+1|@|'s\b|[^\W_]+(?:'[^\W_]+)*|[^\w\s]")


class NotReorderable(ValueError):
    """A scenario whose demonstrations no other order can show with its reply chains kept."""


@dataclass(frozen=True)
class _Mention:
    """Where a turn names a participant, with the tokens either side."""

    author: str
    before: tuple[str, ...]
    after: tuple[str, ...]


def _mentions(scenario: Scenario) -> list[list[_Mention]]:
    """Each turn's mentions of a participant, read as a rename reads names (every way a person
    is written, accents folded, a name that is a word only where it is the name; a mention
    that cannot be told counts, so an unclear reference is kept in place)."""
    actors = list(dict.fromkeys(turn.actor for turn in scenario.transcript))
    parts = {actor: name_parts(actor) for actor in actors}
    owners = {**part_keys(parts), **{actor: actor for actor in actors}}
    probe = Renaming(dict.fromkeys(owners, ""), item=scenario.scenario_id, lenient=True)
    found = []
    for turn in scenario.transcript:
        mentions = []
        for _, begin, stop, old in probe.occurrences(turn.content):
            before = tuple(t.lower() for t in _TOKEN.findall(fold_offsets(turn.content[:begin])[0]))
            after = tuple(t.lower() for t in _TOKEN.findall(fold_offsets(turn.content[stop:])[0]))
            mentions.append(_Mention(owners[old], before[-2:], after[:2]))
        found.append(mentions)
    return found


def _addresses(mention: _Mention) -> bool:
    """Whether a mention speaks to its bearer: first in the turn (after a greeting or "@"),
    before a comma or a question, or before "can/could/would … you"."""
    opening = not mention.before or set(mention.before) <= GREETING
    return (
        opening
        or (mention.after[:1] and mention.after[0] in ADDRESSING)
        or (mention.before[-1:] == ("@",))
    )


def _leans_back(mention: _Mention) -> bool:
    """Whether a mention refers back to its bearer's last turn ("as Javi said", "+1 Javi")."""
    before, after = mention.before, mention.after
    if (before[-1:] and before[-1] in BACK_BEFORE) or before[-2:] in BACK_PAIRS:
        return True
    if before[-1:] and before[-1] in ("as", "like", "what") and after[:1]:
        return after[0] in BACK_SAYING
    return after[:2] in BACK_AFTER


def exchanges(scenario: Scenario) -> list[list[int]]:
    """The transcript positions of each exchange, in chat order (see the module docstring)."""
    mentions = _mentions(scenario)
    return _exchanges(scenario, mentions, _depends(scenario, mentions))


def _exchanges(
    scenario: Scenario, mentions: list[list[_Mention]], depends: dict[int, set[int]]
) -> list[list[int]]:
    transcript = scenario.transcript
    elicitor = len(transcript) - 1
    position = {turn.turn_id: index for index, turn in enumerate(transcript)}
    spans: list[list[int]] = []
    for index in sorted(position[turn_id] for turn_id in scenario.demonstration_turn_ids):
        start = _request(transcript, mentions, index)
        end = index
        # The replies that lean on the exchange straight after it go with it.
        while end + 1 < elicitor and depends[end + 1] & set(range(start, end + 1)):
            end += 1
        if spans and start <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    return [list(range(first, last + 1)) for first, last in spans]


def _request(transcript: Sequence[Turn], mentions: list[list[_Mention]], index: int) -> int:
    """Where the request a demonstration answers stands: the latest earlier turn of another
    member that addresses its author, else the turn just before it where that is another
    member's question, else the demonstration itself (it answers nothing)."""
    author = transcript[index].actor
    for earlier in range(index - 1, -1, -1):
        if transcript[earlier].actor == author:
            continue
        if any(m.author == author and _addresses(m) for m in mentions[earlier]):
            return earlier
    before = transcript[index - 1] if index else None
    if before is not None and before.actor != author and before.content.rstrip().endswith("?"):
        return index - 1
    return index


def dependencies(scenario: Scenario) -> dict[int, set[int]]:
    """Each transcript position → the earlier positions it depends on."""
    return _depends(scenario, _mentions(scenario))


def _depends(scenario: Scenario, mentions: list[list[_Mention]]) -> dict[int, set[int]]:
    transcript = scenario.transcript
    names = {w for turn in transcript for w in words(turn.actor)}
    content = [
        {w for w in words(t.content) if len(w) > 2 and w not in STOPWORDS} - names
        for t in transcript
    ]
    holders: dict[str, int] = {}
    for found in content:
        for word in found:
            holders[word] = holders.get(word, 0) + 1
    depends: dict[int, set[int]] = {index: set() for index in range(len(transcript))}
    for index, turn in enumerate(transcript):
        if index and _BARE_BACK.search(turn.content):
            depends[index].add(index - 1)
        for mention in mentions[index]:
            if _leans_back(mention):
                earlier = [i for i in range(index) if transcript[i].actor == mention.author]
                depends[index].update(earlier[-1:])
        for word in content[index]:
            if holders[word] > DISTINCT_IN:
                continue
            earlier = [i for i in range(index) if word in content[i]]
            depends[index].update(earlier[-1:])
    return depends


def _broken(order: Sequence[int], depends: dict[int, set[int]]) -> tuple[int, int] | None:
    """The first (turn, what it depends on) pair that ``order`` puts the wrong way round."""
    at = {index: place for place, index in enumerate(order)}
    for index in order:
        for earlier in sorted(depends[index]):
            if at[earlier] > at[index]:
                return index, earlier
    return None


def _layout(length: int, blocks: list[list[int]], order: Sequence[int]) -> list[int]:
    """The transcript positions with ``blocks`` put into each other's slots by ``order``."""
    slot_of = {index: slot for slot, block in enumerate(blocks) for index in block}
    laid: list[int] = []
    for index in range(length):
        slot = slot_of.get(index)
        if slot is None:
            laid.append(index)
        elif index == blocks[slot][0]:
            laid += blocks[order[slot]]
    return laid


def reordered(scenario: Scenario, seed: int) -> Scenario:
    """The scenario with its exchanges in a seeded order other than the paper's that keeps
    every dependency; ``NotReorderable`` where there is none."""
    mentions = _mentions(scenario)
    depends = _depends(scenario, mentions)
    blocks = _exchanges(scenario, mentions, depends)
    sid = scenario.scenario_id
    if len(blocks) < 2:
        raise NotReorderable(f"{sid}: fewer than two demonstration exchanges to reorder")
    if len(blocks) > MAX_EXCHANGES:
        raise NotReorderable(f"{sid}: more than {MAX_EXCHANGES} demonstration exchanges")
    length = len(scenario.transcript)
    kept, first_break = [], None
    for order in permutations(range(len(blocks))):
        if list(order) == sorted(order):
            continue
        laid = _layout(length, blocks, order)
        broken = _broken(laid, depends)
        if broken is None:
            kept.append(laid)
        elif first_break is None:
            first_break = broken
    if not kept:
        assert first_break is not None
        turn, earlier = (scenario.transcript[i].turn_id for i in first_break)
        raise NotReorderable(
            f"{sid}: no other order of its {len(blocks)} demonstration exchanges keeps its reply "
            f"chains (turn {turn} leans on turn {earlier})"
        )
    laid = Random(f"reorder:{seed}:{sid}").choice(kept)
    return scenario.model_copy(update={"transcript": [scenario.transcript[i] for i in laid]})


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m normlab.losona.reorder [SCENARIOS]``: the ids of the scenarios that can be
    reordered, comma-separated (for ``-T scenario_ids=``); the others on stderr, one a line."""
    import sys

    from normlab.core.errors import InputError
    from normlab.losona.dataset import load_scenarios

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        scenarios = load_scenarios(args[0]) if args else load_scenarios()
    except InputError as error:
        print(error.one_line(), file=sys.stderr)
        return 2
    kept = []
    for scenario in scenarios:
        try:
            reordered(scenario, 1)
            kept.append(scenario.scenario_id)
        except NotReorderable as error:
            print(f"not reorderable: {error}", file=sys.stderr)
    print(",".join(kept))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
