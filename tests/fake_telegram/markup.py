"""Text handling the way Telegram does it: HTML parse mode, trimming, entities.

Telegram does not store the HTML a bot sends: it parses it into plain text plus
``MessageEntity`` objects (offsets and lengths in UTF-16 code units), refuses
malformed markup with ``can't parse entities``, and trims surrounding
whitespace.  The bot's own "is this message already up to date" logic and the
"message is not modified" error both depend on that normalised form, so the
fake reproduces it.  The HTML parser is a port of the one in TDLib (which the
Bot API server uses), including its error texts and byte offsets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .errors import PARSE_ENTITIES, bad_request

#: Tags accepted by Telegram's HTML parse mode.
SUPPORTED_TAGS = frozenset(
    {
        "a",
        "b",
        "strong",
        "i",
        "em",
        "u",
        "ins",
        "s",
        "strike",
        "del",
        "span",
        "tg-spoiler",
        "tg-emoji",
        "code",
        "pre",
        "blockquote",
    }
)

_SIMPLE_ENTITY_TYPES = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "span": "spoiler",
    "tg-spoiler": "spoiler",
    "code": "code",
}

_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
# Whitespace Telegram trims around a message text.
_TRIMMED = " \t\n\r\v\f"
_URL_RE = re.compile(r"^(?:(?:https?|tg|ton)://\S+|[\w-]+(?:\.[\w-]+)+(?:[/?#]\S*)?)$", re.I)
_USER_LINK_RE = re.compile(r"^tg://user\?id=(\d+)$", re.I)
_COMMAND_RE = re.compile(r"(?<![\w/@])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w@/])")
_MENTION_RE = re.compile(r"(?<![\w@/])@[A-Za-z][A-Za-z0-9_]{3,31}(?![\w@])")
# A run of text with no tag and no entity: emitted whole (one character at a
# time, this parser took 40 % of the load bench's fake Telegram).
_PLAIN_RUN = re.compile(r"[^<&]+")


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, the unit of every entity offset in the Bot API."""
    return len(text.encode("utf-16-le")) // 2


def parse_failure(reason: str) -> Exception:
    """The 400 Telegram answers for markup it cannot parse."""
    return bad_request(PARSE_ENTITIES + reason)


@dataclass
class _OpenTag:
    name: str
    argument: str
    utf16_start: int
    char_start: int


class _HtmlParser:
    """One-shot port of TDLib's ``parse_html``: same acceptance rules, same messages."""

    def __init__(self, text: str, *, strict_ampersand: bool) -> None:
        self.text = text
        self.n = len(text)
        self.strict_ampersand = strict_ampersand
        self.out: list[str] = []
        self.utf16 = 0
        self.chars = 0
        self.stack: list[_OpenTag] = []
        self.entities: list[dict[str, Any]] = []

    def byte_offset(self, index: int) -> int:
        """TDLib reports positions as UTF-8 byte offsets into the original text."""
        return len(self.text[:index].encode("utf-8"))

    def char(self, index: int) -> str:
        """The character at ``index`` or ``""`` past the end (TDLib reads a NUL there)."""
        return self.text[index] if index < self.n else ""

    def emit(self, chunk: str) -> None:
        self.out.append(chunk)
        self.utf16 += utf16_len(chunk)
        self.chars += len(chunk)

    def parse(self) -> tuple[str, list[dict[str, Any]]]:
        i = 0
        while i < self.n:
            c = self.text[i]
            if c == "&":
                decoded, end = decode_html_entity(self.text, i)
                if decoded is not None:
                    self.emit(decoded)
                    i = end
                    continue
                if self.strict_ampersand:
                    raise parse_failure(
                        f'Unescaped "&" at byte offset {self.byte_offset(i)} is not an HTML '
                        "entity (fake Telegram strict mode: escape it as &amp;)"
                    )
                self.emit(c)
                i += 1
                continue
            if c != "<":
                run = _PLAIN_RUN.match(self.text, i)
                assert run is not None  # c is neither "<" nor "&"
                self.emit(run.group())
                i = run.end()
                continue
            i = self.close_tag(i) if self.char(i + 1) == "/" else self.open_tag(i)
        if self.stack:
            raise parse_failure(
                f'Can\'t find end tag corresponding to start tag "{self.stack[-1].name}"'
            )
        self.entities.sort(key=lambda e: (e["offset"], -e["length"]))
        return "".join(self.out), self.entities

    def skip_spaces(self, i: int) -> int:
        while i < self.n and self.text[i].isspace():
            i += 1
        return i

    def open_tag(self, begin: int) -> int:
        i = begin + 1
        while i < self.n and not self.text[i].isspace() and self.text[i] != ">":
            i += 1
        if i >= self.n:
            raise parse_failure(f"Unclosed start tag at byte offset {self.byte_offset(begin)}")
        name = self.text[begin + 1 : i].lower()
        if name not in SUPPORTED_TAGS:
            raise parse_failure(
                f'Unsupported start tag "{name}" at byte offset {self.byte_offset(begin)}'
            )
        argument = ""
        while self.char(i) != ">":
            i = self.skip_spaces(i)
            if self.char(i) == ">":
                break
            attr_begin = i
            while i < self.n and not self.text[i].isspace() and self.text[i] not in "=>":
                i += 1
            attr_name = self.text[attr_begin:i].lower()
            if not attr_name:
                raise parse_failure(
                    f'Empty attribute name in the tag "{name}" at byte offset '
                    f"{self.byte_offset(begin)}"
                )
            i = self.skip_spaces(i)
            if self.char(i) != "=":
                if name == "blockquote" and attr_name == "expandable":
                    argument = "expandable"  # the one valueless attribute Telegram knows
                    continue
                raise parse_failure(
                    "Expected equal sign in declaration of an attribute of the tag "
                    f'"{name}" at byte offset {self.byte_offset(begin)}'
                )
            i = self.skip_spaces(i + 1)
            if i >= self.n:
                raise parse_failure(
                    f'Unclosed start tag "{name}" at byte offset {self.byte_offset(begin)}'
                )
            value, i = self.attribute_value(i, begin)
            if name == "a" and attr_name == "href":
                argument = value
            elif name == "code" and attr_name == "class" and value.startswith("language-"):
                argument = value.removeprefix("language-")
            elif name == "span" and attr_name == "class" and value.startswith("tg-"):
                argument = value.removeprefix("tg-")
            elif name == "tg-emoji" and attr_name == "emoji-id":
                argument = value
            elif name == "blockquote" and attr_name == "expandable":
                argument = "expandable"
        if name == "span" and argument != "spoiler":
            raise parse_failure(
                f'Tag "span" must have class "tg-spoiler" at byte offset {self.byte_offset(begin)}'
            )
        self.stack.append(_OpenTag(name, argument, self.utf16, self.chars))
        return i + 1

    def attribute_value(self, i: int, tag_begin: int) -> tuple[str, int]:
        quote = self.text[i]
        if quote not in "'\"":
            # An unquoted value is an HTML name token: letters, digits, '.' and '-'.
            start = i
            while i < self.n and (self.text[i].isalnum() or self.text[i] in ".-"):
                i += 1
            if i < self.n and not self.text[i].isspace() and self.text[i] != ">":
                raise parse_failure(
                    f"Unexpected end of name token at byte offset {self.byte_offset(i)}"
                )
            return self.text[start:i].lower(), i
        i += 1
        chunks: list[str] = []
        while i < self.n and self.text[i] != quote:
            if self.text[i] == "&":
                decoded, end = decode_html_entity(self.text, i)
                if decoded is not None:
                    chunks.append(decoded)
                    i = end
                    continue
            chunks.append(self.text[i])
            i += 1
        if i >= self.n:
            raise parse_failure(f"Unclosed start tag at byte offset {self.byte_offset(tag_begin)}")
        return "".join(chunks), i + 1

    def close_tag(self, begin: int) -> int:
        if not self.stack:
            raise parse_failure(f"Unexpected end tag at byte offset {self.byte_offset(begin)}")
        i = begin + 2
        while i < self.n and not self.text[i].isspace() and self.text[i] != ">":
            i += 1
        end_name = self.text[begin + 2 : i].lower()
        i = self.skip_spaces(i)
        if self.char(i) != ">":
            raise parse_failure(f"Unclosed end tag at byte offset {self.byte_offset(begin)}")
        tag = self.stack.pop()
        if end_name and end_name != tag.name:
            raise parse_failure(
                f"Unmatched end tag at byte offset {self.byte_offset(begin)}, "
                f'expected "</{tag.name}>", found "</{end_name}>"'
            )
        self.add_entity(tag)
        return i + 1

    def add_entity(self, tag: _OpenTag) -> None:
        length = self.utf16 - tag.utf16_start
        if length <= 0:
            return
        entity: dict[str, Any] = {"offset": tag.utf16_start, "length": length}
        parent = self.stack[-1] if self.stack else None
        if tag.name == "code" and parent is not None and parent.name == "pre":
            # <pre><code class="language-x"> is how a pre block gets its language;
            # the code entity itself is absorbed by the pre.
            if tag.argument and parent.utf16_start == tag.utf16_start:
                parent.argument = tag.argument
            return
        if tag.name in _SIMPLE_ENTITY_TYPES:
            entity["type"] = _SIMPLE_ENTITY_TYPES[tag.name]
        elif tag.name == "pre":
            entity["type"] = "pre"
            if tag.argument:
                entity["language"] = tag.argument
        elif tag.name == "blockquote":
            entity["type"] = "expandable_blockquote" if tag.argument else "blockquote"
        elif tag.name == "tg-emoji":
            if not tag.argument.isdigit():
                raise parse_failure("Invalid custom emoji identifier specified")
            entity["type"] = "custom_emoji"
            entity["custom_emoji_id"] = tag.argument
        else:  # "a"
            url = tag.argument or "".join(self.out)[tag.char_start :]
            user_link = _USER_LINK_RE.match(url)
            if user_link:
                entity["type"] = "text_mention"
                entity["user"] = {"id": int(user_link.group(1)), "is_bot": False, "first_name": ""}
            elif _URL_RE.match(url):
                entity["type"] = "text_link"
                entity["url"] = url
            else:
                return  # Telegram silently drops links it cannot use
        self.entities.append(entity)


def decode_html_entity(text: str, pos: int) -> tuple[str | None, int]:
    """Decode ``&...;`` at ``pos`` like TDLib: numeric ones plus lt, gt, amp, quot.

    The trailing ``;`` is optional, as in TDLib.  Returns ``(None, pos)`` when
    the ampersand does not start an entity Telegram knows.
    """
    n = len(text)
    end = pos + 1
    if end < n and text[end] == "#":
        end += 1
        base = 10
        if end < n and text[end] in "xX":
            base = 16
            end += 1
        start = end
        digits = "0123456789abcdefABCDEF" if base == 16 else "0123456789"
        while end < n and text[end] in digits:
            end += 1
        if end == start or end - pos >= 10:
            return None, pos
        code = int(text[start:end], base)
        if code == 0 or code >= 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            return None, pos
        decoded = chr(code)
    else:
        start = end
        while end < n and text[end].isascii() and text[end].isalpha():
            end += 1
        name = text[start:end]
        if name not in _NAMED_ENTITIES:
            return None, pos
        decoded = _NAMED_ENTITIES[name]
    if end < n and text[end] == ";":
        end += 1
    return decoded, end


def parse_html(text: str, *, strict_ampersand: bool = True) -> tuple[str, list[dict[str, Any]]]:
    """Parse Telegram HTML into ``(plain_text, entities)`` or raise the 400 Telegram gives.

    ``strict_ampersand`` is the only deliberate deviation: real Telegram keeps a
    bare ``&`` that does not start an entity as a literal character, but a bare
    ``&`` in the bot's output nearly always means user input was interpolated
    without ``html.quote`` (and the next user will type ``<3``), so the fake
    refuses it by default.
    """
    return _HtmlParser(text, strict_ampersand=strict_ampersand).parse()


def trim(text: str, entities: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Strip surrounding whitespace as Telegram does, shifting and clipping entities."""
    stripped = text.strip(_TRIMMED)
    if stripped == text:
        return text, entities
    lead = utf16_len(text[: len(text) - len(text.lstrip(_TRIMMED))])
    total = utf16_len(stripped)
    result = []
    for entity in entities:
        start = max(entity["offset"] - lead, 0)
        end = min(entity["offset"] + entity["length"] - lead, total)
        if end > start:
            result.append({**entity, "offset": start, "length": end - start})
    return stripped, result


def detect_user_entities(text: str) -> list[dict[str, Any]]:
    """Entities Telegram attaches to a plain user message: bot commands and @mentions.

    aiogram's ``Command`` filter and ``CommandStart`` do not look at entities,
    but bots that parse mentions or commands in the middle of a text do.
    """
    found: list[dict[str, Any]] = []
    for pattern, kind in ((_COMMAND_RE, "bot_command"), (_MENTION_RE, "mention")):
        for match in pattern.finditer(text):
            found.append(
                {
                    "type": kind,
                    "offset": utf16_len(text[: match.start()]),
                    "length": utf16_len(match.group()),
                }
            )
    found.sort(key=lambda e: e["offset"])
    return found


def leading_command(text: str) -> tuple[str, str | None] | None:
    """``("/cmd", "botname" or None)`` when the text starts with a bot command."""
    match = _COMMAND_RE.match(text)
    if match is None:
        return None
    command, _, mention = match.group().partition("@")
    return command, mention or None
