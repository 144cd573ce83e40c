"""The line format of campaign.conf, assessment.conf and env files.

    # a comment line; ' #' also starts a comment after a value
    key = value
    [section]            or   [kind name]

Returns the lines as Entry tuples, each knowing its file and line, so every
later check can say where a mistake is.
"""
import re
from typing import NamedTuple

from gen.errors import ConfigError

KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*$")
SECTION = re.compile(r"\[\s*([^\]]*?)\s*\]$")


class Entry(NamedTuple):
    path: str
    line: int
    section: str  # "" before the first [section]
    key: str
    value: str

    def error(self, message):
        return ConfigError(self.path, self.line, message)


def strip_comment(text):
    """The text before a '#' that starts the line or follows a blank."""
    match = re.search(r"(^|\s)#", text)
    return (text[: match.start()] if match else text).strip()


def parse_lines(path, text):
    """Entries of TEXT (the contents of PATH); sections are entries with key ''."""
    entries, section = [], ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = strip_comment(raw)
        if not line:
            continue
        header = SECTION.match(line)
        if header:
            section = " ".join(header.group(1).split())
            if not section:
                raise ConfigError(path, number, "empty section name '[]'")
            entries.append(Entry(path, number, section, "", ""))
            continue
        key, equals, value = line.partition("=")
        key = key.strip()
        if not equals or not KEY.match(key):
            raise ConfigError(path, number, f"malformed line '{raw.strip()}' "
                              "(expected 'key = value', '[section]' or a # comment)")
        entries.append(Entry(path, number, section, key, value.strip()))
    return entries


def read_entries(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except UnicodeDecodeError:
        raise ConfigError(path, 0, "not a UTF-8 text file") from None
    except OSError as e:
        raise ConfigError(path, 0, f"cannot read: {e.strerror}") from None
    return parse_lines(path, text)
