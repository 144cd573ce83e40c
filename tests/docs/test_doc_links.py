"""The README and docs/*.md point only at what the repository holds: every
relative link names a file that exists (and a heading of it, where it
names one), and no text sends the reader to the specification the project
was built from ("SPEC §5"), which is not part of the repository. The
README shows the two commands a newcomer needs (make demo, make test)
before its feature sections."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def slug(heading):
    """A heading's anchor as GitHub makes it."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path):
    found, seen, fenced = set(), {}, False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        heading = None if fenced else re.match(r"^#+\s+(.*)$", line)
        if heading:
            name = slug(heading.group(1))
            found.add(name if name not in seen else f"{name}-{seen[name]}")
            seen[name] = seen.get(name, 0) + 1
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_names_a_file_and_heading_of_the_repository(page):
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
        if re.match(r"^[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        destination = (page.parent / path).resolve() if path else page
        if not destination.exists():
            broken.append(f"{target}: no such file")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{target}: no such heading")
    assert broken == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_text_points_at_the_specification_outside_the_repository(page):
    assert re.findall(r"SPEC ?§? ?\d[\d.]*", page.read_text()) == []


def test_make_demo_comes_before_the_feature_sections():
    text = (ROOT / "README.md").read_text()
    first_section = text.index("\n## ")
    assert text.index("make demo") < text.index("\n## ", first_section + 1), \
        "make demo is in the README's first section"
