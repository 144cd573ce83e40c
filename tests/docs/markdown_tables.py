"""Reading the tables of the Markdown write-ups the docs tests check."""


def markdown_table(text, heading, unbold=False):
    """The rows (lists of cells) of the first Markdown table after HEADING in
    TEXT, without its header and rule; UNBOLD: without the cells' **."""
    lines = text[text.index(heading):].splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("|"))
    block = []
    for line in lines[first:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        block.append([cell.replace("**", "") for cell in cells] if unbold else cells)
    return block[2:]
