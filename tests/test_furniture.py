import pytest

from graphrag_local.furniture import is_page_number, join_pages, joint, key, strip_pages, strip_text
from graphrag_local.sentences import split_sentences
from graphrag_local.stages.load import load_documents

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split()
HEADER = ["Behind the Tech Kevin Scott Podcast", "EP-12: Bill Coughran: Human-Centered AI"]


def podcast(pages: int = 6, first: int = 1) -> str:
    """A transcript saved from a PDF: each page starts with a two-line running header and
    its number, and the text runs on across pages mid-sentence."""
    lines = []
    for n in range(first, first + pages):
        lines += [*HEADER, str(n)]
        lines += [
            f"do when the {WORDS[n - 1]} work was done. KEVIN SCOTT: Yeah. I think the team",
            f"on {WORDS[n]} was small, and the people stayed for years. They were the ones",
            "qualified to",  # repeated, but three lines from the page number: text
        ]
    return "\n".join(lines) + "\n"


def sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text)]


def test_podcast_headers_and_page_numbers_are_removed():
    text, removed = strip_text(podcast())
    assert "Behind" not in text and "EP-12" not in text
    assert [line for line in text.split("\n") if line.strip().isdigit()] == []
    assert removed[:3] == [*HEADER, "1"] and len(removed) == 18
    assert text.count("qualified to") == 6
    # the sentence the header cut in two reads as one
    assert "They were the ones qualified to do when the beta work was done." in [
        " ".join(s.split()) for s in sentences(text)
    ]


def test_text_without_furniture_comes_back_as_it_was():
    text = "One line.\nAnother line.\n\nA paragraph.\n"
    assert strip_text(text) == (text, [])


DIALOGUE = """[MUSIC]
KEVIN SCOTT: Welcome to the show.
GUEST: Thanks for having me.
KEVIN SCOTT: Yeah.
[MUSIC]
GUEST: Right.
KEVIN SCOTT: Yeah.
KEVIN SCOTT:
So tell me about 1985.
GUEST:
It was a big year.
KEVIN SCOTT:
And then?
[MUSIC]
KEVIN SCOTT: Yeah.
[MUSIC]
"""

POEM = """The tide comes in, the tide goes out,
and the gulls cry over the bay
Over the bay, over the bay

The boats go out before the dawn,
and the nets are mended by day
Over the bay, over the bay

The lamps are lit along the quay,
the old men sit and stay
Over the bay, over the bay

Over the bay, over the bay
"""

MARKDOWN = """# Report

## Notes
First notes.

## Figures
Some figures.

## Notes
Second notes.

## Notes
Third notes.
"""

COUNTDOWN = "Ready\n3\n2\n1\nGo\nReady\n3\n2\n1\nGo\nReady\n3\n2\n1\nGo\n"
TABLES = "".join(f"Rainfall in {town}.\nYear\n{year}\nMillimetres\n{mm}\n"
                 for town, year, mm in [("Harrow", 1990, 700), ("Linden", 2000, 650),
                                        ("Calder", 2010, 720), ("Ashby", 2020, 610)])


@pytest.mark.parametrize("text", [DIALOGUE, POEM, MARKDOWN, COUNTDOWN, TABLES])
def test_repeated_lines_that_are_text_stay(text):
    """Dialogue, a speaker label on its own line, a stage direction, a refrain, a
    heading written three times, a countdown, table labels above numbers: repeated whole
    lines, but without page numbers counting up next to them."""
    assert strip_text(text) == (text, [])


def test_page_lines_on_their_own_are_removed_when_their_numbers_count_up():
    pages = [f"The {w} text of this page, which goes on\nPage {n} of 4"
             for n, w in enumerate(WORDS[:4], 1)]
    text, removed = strip_text("\n".join(pages))
    assert "Page" not in text and removed == [f"Page {n} of 4" for n in range(1, 5)]
    jumbled = "\n".join(f"Step one.\nPage {n}" for n in (3, 1, 2))
    assert strip_text(jumbled) == (jumbled, [])


def test_furniture_between_paragraphs_leaves_one_blank_line():
    page = "A full paragraph ends here.\n\nReport 2023\n{n}\n\nThe next one starts."
    text, _ = strip_text("\n\n".join(page.format(n=n) for n in range(1, 5)))
    assert "Report" not in text and "\n\n\n" not in text
    assert "ends here.\n\nThe next one starts." in text


@pytest.mark.parametrize(
    "before, after, expected",
    [
        ("as well as the", "computing science", "\n"),
        ("as well as the ", "  computing science", "\n"),
        ("different perspective.", "and then", "\n\n"),
        ("a list:", "first item", "\n\n"),
        ("as well as the", "Bell Labs", "\n"),
        ("the end.\u201d", "Then", "\n\n"),
        ("", "anything", "\n\n"),
    ],
)
def test_joint(before, after, expected):
    assert joint(before, after) == expected


@pytest.mark.parametrize(
    "line, expected",
    [("8", True), (" 12 ", True), ("- 3 -", True), ("Page 3", True), ("page 3 of 7", True),
     ("3 of 7", True), ("p. 4", True), ("12/40", True), ("2023 report", False),
     ("Page three", False), ("12345", False), ("", False)],
)
def test_is_page_number(line, expected):
    assert is_page_number(line) is expected


def test_key_reads_digits_as_one_mark():
    assert key("  EP-12:  Bill   Coughran 8 ") == "EP-#: Bill Coughran #"


def annual(n: int, body: list[str]) -> str:
    return "\n".join(["Annual Report of the Aldren Water Trust 2023", *body, f"Page {n} of 5"])


def test_pages_lose_running_head_and_page_numbers_only_at_their_edges():
    body = [[f"The {w} line", f"{w} again"] for w in WORDS[:5]]
    body[2][1:1] = ["Annual Report of the Aldren Water Trust 2023"]  # the head, quoted
    pages = [annual(n, lines) for n, lines in enumerate(body, 1)]
    out, removed = strip_pages(pages)
    assert out == ["\n".join(lines) for lines in body]  # the same line mid-page stays
    assert len(removed) == 10


def test_table_rows_that_differ_only_in_numbers_are_not_furniture():
    rows = [[f"Well {n}{r} pumped {r * 7} litres" for r in range(6)] + ["Total 1 2 3", "4 5 6"]
            for n in range(1, 6)]
    pages = [annual(n, lines) for n, lines in enumerate(rows, 1)]
    out, _ = strip_pages(pages)
    assert out == ["\n".join(lines) for lines in rows]


def test_alternating_heads_on_half_the_pages_are_furniture():
    heads = ["The Book Title", "Chapter One"]
    pages = [f"{heads[n % 2]}\nThe {w} page.\n{n}" for n, w in enumerate(WORDS[:7], 1)]
    out, _ = strip_pages(pages)
    assert out == [f"The {w} page." for w in WORDS[:7]]


def test_two_pages_or_a_line_on_few_pages_are_left_alone():
    two = [annual(n, ["Body text."]) for n in (1, 2)]
    assert strip_pages(two) == (two, [])
    few = [("Summary\n" if n < 3 else "") + f"The {w} page." for n, w in enumerate(WORDS[:8])]
    assert strip_pages(few) == (few, [])


def test_join_pages_runs_sentences_on_and_skips_empty_pages():
    assert join_pages(["It was the", "", "best of times.", "Then it ended."]) == (
        "It was the\nbest of times.\n\nThen it ended."
    )


def test_load_strips_furniture_from_text_and_form_fed_pages_and_keeps_markdown_sections(
    tmp_path,
):
    (tmp_path / "ep12.txt").write_text(podcast(), encoding="utf-8")
    pages = [annual(n, [f"The trust met on {w} day and it", f"agreed on the {w} budget."])
             for n, w in enumerate(WORDS[:4], 1)]
    (tmp_path / "report.txt").write_text("\f".join(pages), encoding="utf-8")
    md = "# Water\n\n" + podcast(3) + "\n## Budget\n\n" + podcast(3, first=4)
    (tmp_path / "notes.md").write_text(md, encoding="utf-8")
    docs, warnings = load_documents(tmp_path, (".txt", ".md"), "text")
    assert warnings == []
    for doc in docs:
        assert "Behind" not in doc.text and "Annual Report" not in doc.text, doc.path
        assert not any(line.strip().isdigit() for line in doc.text.split("\n")), doc.path
    report = next(d for d in docs if d.path == "report.txt")
    assert "alpha day and it\nagreed on the alpha budget.\n\nThe trust met on beta" in report.text
    notes = next(d for d in docs if d.path == "notes.md")
    assert [label for _, _, label in notes.sections] == ["§ Water", "§ Budget"]
    budget = notes.sections[1]
    assert notes.text[budget[0] :].startswith("## Budget\n")
    assert notes.text[budget[0] : budget[1]] == notes.text[budget[0] :]


def test_template_pages_are_text_not_furniture():
    """Short pages whose lines differ only in their numbers (a form, an invoice run):
    taking off what repeats would leave nothing, so nothing is taken off."""
    pages = [f"Invoice {n}\nCustomer 10{n}\nTotal {n}00 EUR" for n in range(1, 6)]
    assert strip_pages(pages) == (pages, [])
