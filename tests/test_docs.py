"""Every citation of a repository document resolves to a file and a section.

Code, tests, stories and the API reference cite the documents under ``doc/``
as ``doc/<file>.md §N`` (or ``§N.M``; several as ``§1, §2`` or ``§1 and §2``;
``section N`` reads the same). Each cited file must exist and have a heading
numbered ``N`` (``## 5. Action types``, ``### 3.3 Validation order``). Inside
``doc/`` a citation may leave out the ``doc/`` prefix, and a bare ``§N``
names a section of the same document.

The reference documents that used to live outside the repository are cited
by name no longer: their contracts are in ``doc/`` now, in our own words.

The checker is tried first on made-up text that breaks each rule, so a
checker that silently passes everything fails here.
"""

from __future__ import annotations

import functools
import pathlib
import re
from dataclasses import dataclass

SELF = pathlib.Path(__file__).resolve()
ROOT = SELF.parent.parent
DOC = ROOT / "doc"

#: Where citations are looked for: directories scanned recursively, and single files.
SCANNED = ("placement", "tests", "gabbits", "api-ref", "doc", "ARCHITECTURE.md", "README.rst")
#: Text files that may hold a citation.
SUFFIXES = frozenset({".py", ".rst", ".md", ".yaml", ".yml", ".toml", ".js", ".html", ".txt"})
SKIPPED_DIRS = frozenset({"__pycache__", "_build", ".venv", "node_modules"})

#: Names of documents outside the repository, which nothing may cite any more
#: (spelled so that this file does not cite them itself).
OUTSIDE = tuple(name + ".md" for name in ("PLANNER", "WATCHER_API"))

_SECTION = r"(?:§ ?|section )(\d+(?:\.\d+)*)"
_SECTIONS = rf"{_SECTION}(?:(?:, | and ){_SECTION})*"
#: ``doc/<file>.md`` with the sections that follow it, if any.
_CITED_FILE = re.compile(rf"\bdoc/([\w-]+\.md)\b(?: {_SECTIONS})?")
#: Inside ``doc/``: ``<file>.md`` (no prefix) followed by sections.
_SIBLING = re.compile(rf"(?<![\w/])([\w-]+\.md)\b {_SECTIONS}")
_ONE_SECTION = re.compile(_SECTION)
_HEADING = re.compile(r"^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s", re.MULTILINE)
_OUTSIDE = re.compile("|".join(re.escape(name) for name in OUTSIDE))
#: A repository path quoted in a document: ``placement/effects/base.py``, ``tests/``.
_REPO_PATH = re.compile(r"`((?:placement|tests|gabbits|api-ref|etc|benchmarks)/[\w./-]*)`")


@dataclass(frozen=True)
class Citation:
    where: str  # path:line of the citing text
    document: str  # file name under doc/
    section: str | None  # "5", "3.3", or None for the whole document


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _sections(match: re.Match[str]) -> list[str]:
    """The section numbers of one citation match (none when it names only the file)."""
    return _ONE_SECTION.findall(match.group(0))


def citations(text: str, path: str, in_doc: str | None = None) -> list[Citation]:
    """The citations in ``text``; ``in_doc`` is the document's own name when the
    text is a document under ``doc/`` (relative citations then count)."""
    found: list[Citation] = []
    covered: list[tuple[int, int]] = []
    patterns = [_CITED_FILE] if in_doc is None else [_CITED_FILE, _SIBLING]
    for pattern in patterns:
        for match in pattern.finditer(text):
            if any(start <= match.start() < end for start, end in covered):
                continue
            covered.append(match.span())
            where = f"{path}:{_line_of(text, match.start())}"
            sections = _sections(match)
            if not sections:
                found.append(Citation(where, match.group(1), None))
            found.extend(Citation(where, match.group(1), section) for section in sections)
    if in_doc is not None:
        for match in _ONE_SECTION.finditer(text):
            if not any(start <= match.start() < end for start, end in covered):
                where = f"{path}:{_line_of(text, match.start())}"
                found.append(Citation(where, in_doc, match.group(1)))
    return found


def headings(text: str) -> frozenset[str]:
    """The section numbers a document's headings declare."""
    return frozenset(_HEADING.findall(text))


def unresolved(found: list[Citation], documents: dict[str, str]) -> list[str]:
    """One line per citation naming a missing document or section."""
    problems = []
    for citation in found:
        text = documents.get(citation.document)
        if text is None:
            problems.append(f"{citation.where}: doc/{citation.document} does not exist")
        elif citation.section is not None and citation.section not in headings(text):
            problems.append(
                f"{citation.where}: doc/{citation.document} has no section {citation.section}"
            )
    return problems


def outside_references(text: str, path: str) -> list[str]:
    """One line per mention of a document that lives outside the repository."""
    return [
        f"{path}:{_line_of(text, match.start())}: cites {match.group(0)}, which is not in "
        "the repository (cite doc/ instead)"
        for match in _OUTSIDE.finditer(text)
    ]


def _files() -> list[pathlib.Path]:
    files = []
    for name in SCANNED:
        top = ROOT / name
        if top.is_file():
            files.append(top)
            continue
        for path in sorted(top.rglob("*")):
            relative = path.relative_to(ROOT)
            if (
                path.is_file()
                and path != SELF  # its made-up citations are meant to be broken
                and path.suffix in SUFFIXES
                and not SKIPPED_DIRS.intersection(relative.parts)
            ):
                files.append(path)
    return files


@functools.cache
def _texts() -> dict[str, str]:
    """Every scanned file's text, by path relative to the repository."""
    texts = {}
    for path in _files():
        try:
            texts[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
    return texts


def _documents() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(DOC.glob("*.md"))}


def missing_paths(text: str, path: str, root: pathlib.Path) -> list[str]:
    """One line per repository path quoted in a document that does not exist."""
    return [
        f"{path}:{_line_of(text, match.start())}: {match.group(1)} does not exist"
        for match in _REPO_PATH.finditer(text)
        if not (root / match.group(1)).exists()
    ]


# --- the checker, on made-up text -------------------------------------------------

_SAMPLE_DOC = "# Title\n\n## 1. One\n\n### 1.2 One, two\n\n## 2 Two\n"


def test_the_checker_reads_numbered_headings():
    assert headings(_SAMPLE_DOC) == {"1", "1.2", "2"}


def test_the_checker_reports_each_kind_of_broken_citation():
    text = (
        "# see doc/sample.md §1 and §1.2, doc/sample.md section 2\n"
        "# doc/sample.md §3 is missing, so is doc/sample.md §1.3\n"
        "# doc/nowhere.md §1 and doc/nowhere.md name no document\n"
    )
    found = citations(text, "x.py")
    assert [(c.document, c.section) for c in found] == [
        ("sample.md", "1"),
        ("sample.md", "1.2"),
        ("sample.md", "2"),
        ("sample.md", "3"),
        ("sample.md", "1.3"),
        ("nowhere.md", "1"),
        ("nowhere.md", None),
    ]
    assert unresolved(found, {"sample.md": _SAMPLE_DOC}) == [
        "x.py:2: doc/sample.md has no section 3",
        "x.py:2: doc/sample.md has no section 1.3",
        "x.py:3: doc/nowhere.md does not exist",
        "x.py:3: doc/nowhere.md does not exist",
    ]


def test_inside_doc_relative_and_bare_sections_are_citations():
    text = "As [sample.md §2](sample.md) says, and §4 here; see other.md §1.\n"
    found = citations(text, "doc/this.md", in_doc="this.md")
    assert [(c.document, c.section) for c in found] == [
        ("sample.md", "2"),
        ("other.md", "1"),
        ("this.md", "4"),
    ]


def test_the_checker_reports_documents_from_outside():
    text = "x = 1  # see " + OUTSIDE[0] + " section 5\n"
    assert outside_references(text, "y.py") == [
        f"y.py:1: cites {OUTSIDE[0]}, which is not in the repository (cite doc/ instead)"
    ]


def test_the_checker_reports_paths_that_do_not_exist(tmp_path):
    (tmp_path / "placement").mkdir()
    (tmp_path / "placement" / "here.py").write_text("")
    text = "See `placement/here.py`, `placement/`\nand `placement/gone.py`.\n"
    assert missing_paths(text, "doc/x.md", tmp_path) == [
        "doc/x.md:2: placement/gone.py does not exist"
    ]


# --- the repository ---------------------------------------------------------------


def test_the_scan_reads_the_code_and_the_documents():
    texts = _texts()
    assert "placement/actionplans/planners/weight.py" in texts
    assert "api-ref/source/actionplans-general.rst" in texts
    assert "doc/planner.md" in texts


def test_every_cited_document_and_section_exists():
    documents = _documents()
    problems = []
    for path, text in _texts().items():
        in_doc = pathlib.PurePath(path).name if path.startswith("doc/") else None
        problems += unresolved(citations(text, path, in_doc), documents)
    assert problems == []


def test_nothing_cites_the_documents_that_live_outside_the_repository():
    problems = []
    for path, text in _texts().items():
        problems += outside_references(text, path)
    assert problems == []


def test_every_path_a_document_names_exists():
    problems = []
    for path, text in _texts().items():
        if path.startswith("doc/"):
            problems += missing_paths(text, path, ROOT)
    assert problems == []
