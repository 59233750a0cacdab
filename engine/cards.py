"""Cards as small integers, decks for 3–6 players, and card notation.

A card is ``suit * 13 + rank`` with suits ordered clubs, diamonds, hearts,
spades (0–3) and ranks 2…A (0–12), so ``card >> 2`` tricks are not needed and a
hand fits in one int bitmask: the fast path (legal moves, the computer's
search) works on masks, everything else on lists of ints.
"""

from __future__ import annotations

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUITS = (CLUBS, DIAMONDS, HEARTS, SPADES)
SUIT_LETTERS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
RANK_LETTERS = "23456789TJQKA"
RANK_LABELS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

ALL_CARDS_MASK = (1 << 52) - 1
SUIT_MASKS = tuple(((1 << 13) - 1) << (13 * s) for s in SUITS)
SPADES_MASK = SUIT_MASKS[SPADES]
NON_SPADES_MASK = ALL_CARDS_MASK & ~SPADES_MASK

_SUIT_BY_CHAR = {
    **{c: i for i, c in enumerate(SUIT_LETTERS)},
    **{c.lower(): i for i, c in enumerate(SUIT_LETTERS)},
    **{c: i for i, c in enumerate(SUIT_SYMBOLS)},
    "♧": CLUBS,
    "♢": DIAMONDS,
    "♡": HEARTS,
    "♤": SPADES,
}
_RANK_BY_TEXT = {
    **{c: i for i, c in enumerate(RANK_LETTERS)},
    **{c.lower(): i for i, c in enumerate(RANK_LETTERS)},
    "10": 8,
}


def card(rank: int, suit: int) -> int:
    return suit * 13 + rank


def card_str(c: int) -> str:
    """Canonical notation used in JSON output: ``AS``, ``TD``, ``2C``."""
    return RANK_LETTERS[c % 13] + SUIT_LETTERS[c // 13]


def card_label(c: int) -> str:
    """Human notation: ``A♠``, ``10♦``."""
    return RANK_LABELS[c % 13] + SUIT_SYMBOLS[c // 13]


class CardParseError(ValueError):
    pass


def parse_card(text: object) -> int:
    """Accept ``AS``, ``as``, ``TD``, ``10D``, ``A♠``, ``10♦`` (and suit first: ``♠A``)."""
    if not isinstance(text, str):
        raise CardParseError(f"not a card: {text!r}")
    s = text.strip()
    if len(s) < 2:
        raise CardParseError(f"not a card: {text!r}")
    for rank_part, suit_part in ((s[:-1], s[-1]), (s[1:], s[0])):
        r = _RANK_BY_TEXT.get(rank_part)
        su = _SUIT_BY_CHAR.get(suit_part)
        if r is not None and su is not None:
            return su * 13 + r
    raise CardParseError(f"not a card: {text!r}")


def dropped_cards(players: int) -> tuple[int, ...]:
    """Cards removed so the deck divides evenly (seed 004)."""
    two = 0
    if players == 3:
        return (card(two, CLUBS),)
    if players == 5:
        return (card(two, CLUBS), card(two, DIAMONDS))
    if players == 6:
        return tuple(card(two, s) for s in SUITS)
    return ()


def deck(players: int) -> list[int]:
    drop = set(dropped_cards(players))
    return [c for c in range(52) if c not in drop]


def hand_size(players: int) -> int:
    return len(deck(players)) // players


def mask_of(cards: list[int] | tuple[int, ...]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """Cards of a mask in ascending order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def sort_for_display(cards: list[int]) -> list[int]:
    """Spades first, then hearts, clubs, diamonds (alternating colours); high to low."""
    order = {SPADES: 0, HEARTS: 1, CLUBS: 2, DIAMONDS: 3}
    return sorted(cards, key=lambda c: (order[c // 13], -(c % 13)))
