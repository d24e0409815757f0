"""The names a rename draws from: given names with the pronouns they fit, and family names.

None is an English word (the lexicon of ``normlab.core.namewords``: checked by a test), so a
drawn name is never read as a word, and none is a title. Each given name is marked with the
pronouns an English reader takes it to fit ("f": she/her, "m": he/him, "n": either), so a
participant the text calls "she" is given a name that fits "she" (``fitting``).
"""

from __future__ import annotations

from collections.abc import Mapping

GIVEN: Mapping[str, str] = {
    **dict.fromkeys(
        ("Aigerim", "Anneliese", "Anouk", "Beatrix", "Bolanle", "Catalina", "Chiara", "Dagny",
         "Damla", "Delfina", "Efua", "Eleonora", "Esperanza", "Fabienne", "Folasade",
         "Genevieve", "Gulnara", "Henrike", "Hiroko", "Ilse", "Jelena", "Jovana", "Katarzyna",
         "Kirra", "Klementina", "Leocadia", "Luzia", "Marisela", "Milena", "Nanami", "Ngozi",
         "Nilufar", "Nkechi", "Octavia", "Odalys", "Orsolya", "Pascale", "Petra", "Renata",
         "Rosalia", "Sabela", "Sakura", "Serafina", "Sigrun", "Tahmina", "Tove", "Ugne",
         "Vesna", "Wairimu", "Wilhelmina", "Xiomara", "Yetunde", "Zeynep"),
        "f",
    ),
    **dict.fromkeys(
        ("Adebayo", "Alejandro", "Arnav", "Babajide", "Bartosz", "Benedikt", "Cassius",
         "Cosmin", "Dariusz", "Eitan", "Emeka", "Emilio", "Evander", "Farrukh", "Gaspard",
         "Goran", "Halvard", "Ignacio", "Iskander", "Joaquin", "Kazimir", "Kemal", "Laszlo",
         "Lorcan", "Makoa", "Malik", "Matthias", "Mirko", "Natalio", "Nnamdi", "Quentin",
         "Radomir", "Rasmus", "Salvador", "Sanjeev", "Seamus", "Siddharth", "Stanislav",
         "Suleiman", "Takumi", "Teodor", "Thiago", "Valentin", "Yaroslav", "Zdenek", "Zuberi"),
        "m",
    ),
    **dict.fromkeys(
        ("Akira", "Amani", "Chidera", "Dumisani", "Hikaru", "Jarrah", "Kalani", "Kiran", "Noor",
         "Olamide", "Oluwaseun", "Rumi", "Sasha", "Tenzin", "Yuki"),
        "n",
    ),
}  # fmt: skip
"""Given names of many origins → the pronouns they fit."""
GIVEN_NAMES = tuple(GIVEN)
FAMILY_NAMES = (
    "Abernathy", "Achterberg", "Adeyinka", "Albescu", "Almeida", "Andersson", "Arslan",
    "Bakshi", "Balogun", "Barzani", "Bergkvist", "Bianchetti", "Castellanos", "Chaudhury",
    "Cieslak", "Dahlberg", "Delacroix", "Dimitrov", "Domingos", "Ekwueme", "Escobedo",
    "Falkenrath", "Fenwick-Odu", "Gallardo", "Gundersen", "Hakimi", "Halloran", "Haugland",
    "Ibarra", "Ilunga", "Jablonski", "Jansone", "Kaminski", "Karanja", "Kowalewski",
    "Lachance", "Lindqvist", "Lozano", "Mahlangu", "Marchetti", "Mbatha", "Mendoza",
    "Nakashima", "Nwachukwu", "Ogunleye", "Okonkwo", "Oyelaran", "Pacheco", "Petrovic",
    "Quispe", "Rautenbach", "Rinaldi", "Sandoval", "Sarkozi", "Shevchenko", "Sorensen",
    "Takahashi", "Tembo", "Uchenna", "Valdivia", "Vasquez", "Wojcik", "Yamamoto",
    "Yilmaz", "Zavala", "Zielinska",
)  # fmt: skip
"""Family names, for names of two words or more (SCENE's personas, HSII's characters)."""


def fitting(pronouns: frozenset[str]) -> tuple[str, ...]:
    """The given names that fit a participant the text refers to with ``pronouns`` ("f", "m"):
    any with none, a name of that kind or either with one, a name of either with both."""
    if not pronouns:
        return GIVEN_NAMES
    if len(pronouns) > 1:
        return tuple(name for name, kind in GIVEN.items() if kind == "n")
    (kind,) = pronouns
    return tuple(name for name, fits in GIVEN.items() if fits in (kind, "n"))
