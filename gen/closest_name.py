"""What an unknown name was meant to be: the message for a misspelt op,
topology, order, ... says the closest known name and stays one short line;
the full list is `nbhbench list` (gen/listing.py). The kernel says the same
in the same words (kernel/closest_name.c), by the same rule:

  the known name with the fewest single-letter edits (insert, delete,
  replace, or swap two neighbouring letters: `dmeo`, `lsit`; case ignored)
  from the word, the first in registry order among
  equals, and only where that is at most a third of the word's letters;
  the known names themselves only where they fit in LISTED_INLINE
  characters, else where to list them.
"""
LISTED_INLINE = 60


def edit_distance(a, b):
    """Edits from A to B, case ignored: inserts, deletes, replacements and
    swaps of two neighbouring letters (optimal string alignment distance)."""
    a, b = a.lower(), b.lower()
    before, row = None, list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, y in enumerate(b, start=1):
            current[j] = min(row[j - 1] + (x != y), row[j] + 1, current[j - 1] + 1)
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                current[j] = min(current[j], before[j - 2] + 1)
        before, row = row, current
    return row[-1]


def closest(word, names):
    """The name of NAMES WORD was likely meant to be, or None."""
    best, distance = None, None
    for name in names:
        d = edit_distance(word, name)
        if distance is None or d < distance:
            best, distance = name, d
    return best if distance is not None and distance <= len(word) // 3 else None


def unknown(what, word, names, listing):
    """'unknown WHAT 'WORD' (did you mean NAME? known: ...)': LISTING is the
    command that lists NAMES, named where they are too many to give."""
    names = list(names)
    guess = closest(word, names)
    known = ", ".join(names)
    where = f"known: {known}" if len(known) <= LISTED_INLINE else f"all {len(names)}: {listing}"
    return f"unknown {what} '{word}' ({f'did you mean {guess}? ' if guess else ''}{where})"


if __name__ == "__main__":
    # python -m gen.closest_name WORD NAME...: the closest NAME, or nothing
    # (the shell's did-you-mean: nbhbench's unknown command).
    import sys
    print(closest(sys.argv[1], sys.argv[2:]) or "" if len(sys.argv) > 1 else "")
