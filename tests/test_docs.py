"""The documentation site builds offline in strict mode, and its generated pages cover the registries.

The build runs ``python -m mkdocs build --strict`` into a temporary directory; the MkDocs hook
(``docs/hooks/generate.py``) regenerates the catalogue pages first, so a broken link, a missing page or a
mkdocstrings reference that does not resolve fails this test. Theorem check results are cached in
``docs/.check_cache.json`` (keyed by the package sources), so only the first build after a source change runs
every check (about a minute).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="the docs extra (pip install -e '.[docs]') builds the site")
pytest.importorskip("mkdocstrings")

from dpverify.samplers import registry as samplers  # noqa: E402
from dpverify.theorems import registry as theorems  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"

# The docs generator lives with the docs build (docs/hooks/generate.py), not in the package.
_spec = importlib.util.spec_from_file_location("docs_generate", DOCS / "hooks" / "generate.py")
docs_gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(docs_gen)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)], cwd=REPO,
                          capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return out


def _read(rel: str) -> str:
    return (DOCS / rel).read_text()


@pytest.mark.docs
def test_site_builds_with_every_page(site):
    for page in ("index.html", "getting-started/index.html", "concepts/index.html", "auditing/index.html",
                 "pytest-plugin/index.html", "errata/index.html", "samplers/index.html", "api/index.html",
                 "theorems/index.html", "notebooks/index.html", "benchmark-suite/index.html",
                 "floating-point/index.html", "libraries/index.html", "opacus/index.html",
                 "distributed/index.html", "gpu/index.html"):
        assert (site / page).is_file(), page
    notebooks = sorted((DOCS / "notebooks").glob("*.ipynb"))
    assert len(notebooks) == 10  # 01-06, 07_final_state_privacy, 08_one_run_audits, 09_prove, 10_private_samplers_utility
    for nb in notebooks:
        assert (site / "notebooks" / nb.name).is_file(), nb.name  # the download
        assert (site / "notebooks" / nb.stem / "index.html").is_file(), nb.stem  # the page of its cells


@pytest.mark.docs
def test_theorem_pages_list_every_theorem_with_its_check_status(site):
    pages = {p: _read(f"theorems/{p}.md") for p in {t.paper for t in theorems.all_theorems()}}
    index = _read("theorems/index.md")
    for t in theorems.all_theorems():
        page = pages[t.paper]
        assert f"{{#{t.id}}}" in page, t.id
        assert f"({t.paper}.md#{t.id})" in index, t.id
        html = (site / "theorems" / t.paper / "index.html").read_text()
        assert f'id="{t.id}"' in html, t.id
        section = page.split(f"{{#{t.id}}}", 1)[1].split("\n## ", 1)[0]
        assert "**Check status:**" in section and "not run" not in section.split("**Check status:**")[1].split("\n")[0]
        for c in t.checks:
            assert docs_gen._code(c.name) in section, (t.id, c.name)
        assert ("**Reconstructed:** yes" in section) == t.reconstructed, t.id


@pytest.mark.docs
def test_sampler_page_lists_every_sampler(site):
    page = _read("samplers.md")
    html = (site / "samplers" / "index.html").read_text()
    for cls in samplers.all_samplers():
        assert f"{{#{cls.id}}}" in page, cls.id
        assert f'id="{cls.id}"' in html, cls.id


@pytest.mark.docs
def test_errata_page_lists_every_erratum(site):
    page = _read("errata.md")
    n = 0
    for t in theorems.all_theorems():
        for e in t.errata:
            n += 1
            assert docs_gen._text(e.description) in page, (t.id, e.description)
            assert docs_gen._code(e.printed) in page and docs_gen._code(e.corrected) in page, t.id
    assert re.search(rf"\b{n} errata in\b", page)


def test_generated_pages_are_git_ignored():
    ignored = _read(".gitignore")
    for rel in docs_gen.GENERATED_FILES:
        top = rel.split("/")[0]
        assert f"/{top}" in ignored, rel
    tracked = subprocess.run(["git", "ls-files", "docs"], cwd=REPO, capture_output=True, text=True).stdout.split()
    assert not set(tracked) & {f"docs/{rel}" for rel in docs_gen.GENERATED_FILES}


def test_markdown_escaping_keeps_text_literal():
    assert docs_gen._text("a*b_c | <x>") == r"a\*b\_c \| &lt;x&gt;"
    assert docs_gen._code("x`y") == "``x`y``"


def test_getting_started_quotes_the_readme_commands_literally():
    """Issue 36: the page included the commands with a snippet directive, which showed raw wherever the page is read
    outside the built site (GitHub, an editor). It quotes them literally; this fails when they drift apart."""
    page = (REPO / "docs" / "getting-started.md").read_text()
    assert "--8<--" not in page
    assert docs_gen.quoted_readme_commands() == docs_gen.readme_commands(), (
        "docs/getting-started.md quotes other commands than README.md: copy the README's commands section between "
        "the markers")


@pytest.mark.docs
def test_getting_started_quotes_the_readme_commands(site):
    import html as html_lib

    readme = (REPO / "README.md").read_text()
    section = docs_gen.readme_commands()
    assert section in readme
    commands = re.findall(r"```bash\n(.*?)\n```", section, flags=re.S)
    assert len(commands) >= 2
    text = html_lib.unescape(re.sub(r"<[^>]+>", "", (site / "getting-started" / "index.html").read_text()))
    for command in commands:
        assert command.strip() in text, command


def test_the_readme_counts_the_bug_corpus_right():
    """Issue 36: the README said six reported bugs while the corpus held nine."""
    from dpverify.libraries.corpus import CASES

    words = {"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
    said = re.findall(r"\((\w+) reported DP bugs", (REPO / "README.md").read_text())
    assert said and all(words.get(w, w) in (len(CASES), str(len(CASES))) for w in said), (said, len(CASES))
