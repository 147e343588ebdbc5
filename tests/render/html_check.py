"""Which markup in a rendered HTML page came from its input: the renderers' own elements and attributes are known,
so anything else (an element, an attribute, a comment, a second script, input text inside the script) was injected.
Shared by the hostile-input tests and tools/fuzz_cli.py."""

from __future__ import annotations

from html.parser import HTMLParser

OWN_TAGS = frozenset({"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "table", "thead", "tbody", "tr",
                      "th", "td", "input", "ul", "li", "b", "br", "small", "code", "div", "script"})
OWN_ATTRIBUTES = frozenset({"lang", "charset", "http-equiv", "content", "id", "type", "placeholder", "class", "title",
                            "style"})


class _Page(HTMLParser):
    def __init__(self, marker: str) -> None:
        super().__init__(convert_charrefs=True)
        self.marker, self.problems, self.scripts, self._in_script = marker, [], 0, False

    def handle_starttag(self, tag, attrs):
        if tag not in OWN_TAGS:
            self.problems.append(f"element <{tag}>")
        self.scripts += tag == "script"
        self._in_script = tag == "script"
        for name, value in attrs:
            if name not in OWN_ATTRIBUTES:
                self.problems.append(f"attribute {name}=")
            elif name in ("class", "style", "id") and value and self.marker in value:
                self.problems.append(f"{name} from input")

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script and self.marker in data:
            self.problems.append("input inside <script>")

    def handle_comment(self, data):
        self.problems.append("comment from input")


def injected_markup(page: str, marker: str = "FUZZ") -> list[str]:
    """What in ``page`` is not the renderer's own markup (empty: nothing was injected)."""
    parser = _Page(marker)
    parser.feed(page)
    parser.close()
    return parser.problems + (["more than one <script>"] if parser.scripts > 1 else [])
