"""The console speaks English and Simplified Chinese: nothing a user reads escapes translation.

Three guards, each failing on the mistake it names:

- a template (or a console script) holding user-visible English outside ``{% translate %}`` /
  ``{% blocktranslate %}`` (a script takes its words from the page's data attributes);
- a msgid of ``locale/zh_Hans/LC_MESSAGES/django.po`` without its Chinese (or marked fuzzy);
- a committed ``django.mo`` out of step with its ``.po``.

After adding or changing strings: ``make messages`` (makemessages), translate the new
entries in the .po, then ``make compilemessages`` (README: Translations).
"""

from __future__ import annotations

import ast
import gettext
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES"
SKIP_DIRS = {".venv", "tests", "bench", "docs", "node_modules", ".git"}

# Text a user reads in English in both languages: the product's and protocols' names, units,
# symbols. Keep this short; a sentence never belongs here.
UNTRANSLATED_OK = {
    "Volcano",
    "YAML",
    "CSV",
    "JSON",
    "PNG",
    "UTC",
    "kubectl",
    "Prometheus",
    "ms",
    "UUID",
    # The API's own values, shown as kubectl shows them (phases, conditions, booleans, kinds).
    "Pending",
    "Running",
    "Completed",
    "Failed",
    "Ready",
    "True",
    "False",
    "true",
    "false",
    "Job",
}
# Attributes whose values a user reads (or hears, through a screen reader).
VISIBLE_ATTRIBUTES = {
    "title",
    "placeholder",
    "aria-label",
    "alt",
    "data-confirm",
    "data-ok",
    "data-cancel",
    "data-none",
    "data-valid",
    "data-invalid",
    "data-connecting",
    "data-open",
    "data-closed",
    "data-live-waiting",
}
# Elements whose text is code a user copies (field names, commands, YAML), not prose.
CODE_ELEMENTS = {"code", "pre", "kbd", "samp", "script", "style", "textarea"}
LETTERS = re.compile(r"[A-Za-z]{2,}")
# A field name (minAvailable), an API group (kubeflow.org/v1), a file, a selector, a URL.
TECHNICAL = re.compile(r"[a-z][A-Z]|\w[./=_:<>-]\w|^[./]|/")
PUNCTUATION = "()[],;:!?…·=\"'“”\u2018\u2019."


def templates() -> list[Path]:
    """Every template of the project (the apps' and the shared ``templates/``)."""
    found = []
    for path in sorted(ROOT.rglob("*.html")):
        if SKIP_DIRS.intersection(path.relative_to(ROOT).parts):
            continue
        found.append(path)
    return found


def strip_template(source: str) -> str:
    """Remove what is translated or not shown: comments, blocktranslate blocks, tags, variables."""
    source = re.sub(r"{#.*?#}", " ", source, flags=re.S)
    source = re.sub(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}", " ", source, flags=re.S)
    source = re.sub(
        r"{%\s*blocktranslate\b.*?%}.*?{%\s*endblocktranslate\s*%}", " ", source, flags=re.S
    )
    return re.sub(r"{%.*?%}|{{.*?}}", " ", source, flags=re.S)


def prose(text: str) -> bool:
    """Whether ``text`` has words a user would read, beyond the allowed names."""
    for token in text.split():
        word = token.strip(PUNCTUATION)
        if not LETTERS.search(word) or TECHNICAL.search(word) or word in UNTRANSLATED_OK:
            continue
        return True
    return False


class Untranslated(HTMLParser):
    """Collect text nodes and visible attributes that still hold English words."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self.code_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in CODE_ELEMENTS:
            self.code_depth += 1
        for name, value in attrs:
            if name in VISIBLE_ATTRIBUTES and value and prose(value):
                self.found.append(f"<{tag} {name}={value!r}>")
            button = dict(attrs).get("type") in {"submit", "button", "reset"}
            if tag == "input" and name == "value" and button and value and prose(value):
                self.found.append(f"<input value={value!r}>")

    def handle_endtag(self, tag: str) -> None:
        if tag in CODE_ELEMENTS and self.code_depth:
            self.code_depth -= 1

    def handle_data(self, data: str) -> None:
        if not self.code_depth and prose(data):
            self.found.append(" ".join(data.split()))


def untranslated_in_template(source: str) -> list[str]:
    """The user-visible English of one template."""
    parser = Untranslated()
    parser.feed(strip_template(source))
    parser.close()
    return parser.found


PROSE_LITERAL = re.compile(r"""(["'])((?:(?!\1)[^\\\n]|\\.)*)\1""")
# A literal that reads as a sentence: a capitalised word, then more words.
SENTENCE = re.compile(r"\b[A-Z][a-z]+(?: [A-Za-z]+)+")
# ``el.dataset.ok || "Confirm"``: the page's (translated) word, English only as a fallback.
FALLBACK = re.compile(r"dataset\.\w+\s*\|\|\s*$")
VISIBLE_SINK = re.compile(
    r"(textContent|innerText|title|placeholder|ariaLabel|alert|confirm)\s*(=|\()\s*$"
)


def untranslated_in_script(source: str) -> list[str]:
    """String literals of a script that a user would read and that the page did not supply."""
    source = re.sub(r"/\*.*?\*/", " ", source, flags=re.S)
    source = re.sub(r"(^|[^:\\])//[^\n]*", r"\1", source)
    found = []
    for match in PROSE_LITERAL.finditer(source):
        before = source[max(0, match.start() - 60) : match.start()]
        text = match.group(2)
        if FALLBACK.search(before):
            continue
        # The text of an HTML snippet; a tag the literal leaves open (``'<li data-field="'``)
        # is markup too.
        shown = re.sub(r"<[^>]*(>|$)", " ", text)
        if (
            SENTENCE.search(shown)
            or ("<" in text and prose(shown))
            or (VISIBLE_SINK.search(before) and prose(text))
        ):
            found.append(text)
    return found


def scripts() -> list[Path]:
    """The console's own scripts (third-party ones, like Plotly, come from packages)."""
    return sorted((ROOT / "static" / "console").glob("*.js"))


def test_every_template_string_is_translatable() -> None:
    """A word a user reads in a template is inside {% translate %} or {% blocktranslate %}."""
    problems = {
        str(path.relative_to(ROOT)): found
        for path in templates()
        if (found := untranslated_in_template(path.read_text()))
    }
    assert problems == {}, "wrap these in {% translate %} / {% blocktranslate %}"


def test_every_script_string_comes_from_the_page() -> None:
    """A script's words come from data attributes the template translated."""
    problems = {
        str(path.relative_to(ROOT)): found
        for path in scripts()
        if (found := untranslated_in_script(path.read_text()))
    }
    assert problems == {}, "pass these from the page as translated data attributes"


def test_the_scanners_catch_raw_english() -> None:
    """The guards above would notice a raw string (so their silence means something)."""
    assert untranslated_in_template("<h2>Pods by node</h2>") == ["Pods by node"]
    assert untranslated_in_template('<a title="Open the log">{% translate "x" %}</a>') == [
        "<a title='Open the log'>"
    ]
    assert (
        untranslated_in_template('<p>{% translate "Pods" %} · <code>minAvailable</code></p>') == []
    )
    assert untranslated_in_template("{% blocktranslate %}A {{ n }} b{% endblocktranslate %}") == []
    assert untranslated_in_script('el.textContent = "Saved";') == ["Saved"]
    assert untranslated_in_script('b.title = "Download data as CSV";') == ["Download data as CSV"]
    assert untranslated_in_script('x = el.dataset.ok || "Confirm the change";') == []


def po_entries(path: Path) -> list[tuple[str, list[str], bool]]:
    """(msgid, msgstrs, fuzzy) of every entry of a .po file (the header excluded).

    For a plural entry the msgid is its plural form (the one the translation follows).
    """
    entries: list[tuple[str, list[str], bool]] = []
    for block in path.read_text().split("\n\n"):
        lines = [line for line in block.splitlines() if line.strip()]
        fuzzy = any(line.startswith("#,") and "fuzzy" in line for line in lines)
        if any(line.startswith("#~") for line in lines):
            continue  # an obsolete entry: makemessages keeps it for reuse, nothing shows it
        fields: dict[str, str] = {}
        current = ""
        for line in lines:
            if line.startswith("#"):
                continue
            head, _, rest = line.partition(" ")
            if line.startswith('"'):
                fields[current] += ast.literal_eval(line)
            else:
                current = head
                fields[current] = ast.literal_eval(rest)
        if "msgid" not in fields or fields["msgid"] == "":
            continue
        strs = [value for key, value in fields.items() if key.startswith("msgstr")]
        entries.append((fields.get("msgid_plural", fields["msgid"]), strs, fuzzy))
    return entries


def test_the_chinese_translation_is_complete() -> None:
    """Every msgid has its Simplified Chinese (run makemessages, then translate the new ones)."""
    entries = po_entries(LOCALE / "django.po")
    assert len(entries) > 500
    missing = [msgid for msgid, strs, fuzzy in entries if fuzzy or not all(s.strip() for s in strs)]
    assert missing == [], "translate these in locale/zh_Hans/LC_MESSAGES/django.po"


def test_every_placeholder_survives_translation() -> None:
    """A translation keeps its msgid's %(name)s and {name} placeholders (or the page breaks)."""
    placeholder = re.compile(r"%\(\w+\)[sd]|%\(\w+\)\.\d+f|\{\w+\}")
    wrong = [
        (msgid, s)
        for msgid, strs, _ in po_entries(LOCALE / "django.po")
        for s in strs
        if sorted(set(placeholder.findall(s))) != sorted(set(placeholder.findall(msgid)))
    ]
    assert wrong == []


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="msgfmt (gettext) is not installed")
def test_the_compiled_catalogue_matches_its_po(tmp_path: Path) -> None:
    """The committed django.mo is the compiled django.po (run compilemessages after editing)."""
    fresh = tmp_path / "django.mo"
    subprocess.run(
        ["msgfmt", "--check-format", "-o", str(fresh), str(LOCALE / "django.po")], check=True
    )
    with (LOCALE / "django.mo").open("rb") as committed, fresh.open("rb") as compiled:
        ours = gettext.GNUTranslations(committed)._catalog  # type: ignore[attr-defined]
        theirs = gettext.GNUTranslations(compiled)._catalog  # type: ignore[attr-defined]
    assert ours == theirs, "run `make compilemessages` and commit locale/*/LC_MESSAGES/django.mo"
