"""Regenerate the malformed local-scenario uploads in this folder (all synthetic, no real data).

Run from the repository root: ``.venv/bin/python tests/data/bad_inputs/make_bad_inputs.py``.
Each file breaks one rule of ``evaluator.scenarios``; ``EXPECTED`` (imported by the tests) holds
the phrase its rejection must contain. The 50 MB file is not committed: the tests write it into
``tmp_path`` with ``write_big_file``.
"""

from __future__ import annotations

import io
import random
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEAD = "id,question,reference\n"

EXPECTED: dict[str, str] = {
    "truncated_quote.csv": "ends inside a quoted cell",
    "truncated_row.csv": "the file looks truncated",
    "semicolon_delimiter.csv": "separated by semicolons",
    "tab_delimiter.csv": "separated by tabs",
    "missing_header.csv": "no header row",
    "binary_junk.csv": "binary data",
    "formula_equals.csv": "formula injection",
    "formula_plus_at.csv": "starts with '@'",
    "formula_minus.csv": "starts with '-'",
    "latin1.csv": "not UTF-8 text: byte 0xE9",
    "mixed_encoding.csv": "mixed encodings",
    "utf16.csv": "UTF-16",
    "duplicate_ids.csv": "duplicate id 'q2' (first used in row 3)",
    "empty_reference.csv": "the reference is empty",
    "bad_tolerance_order.csv": "lower 10 is above upper 5",
    "bad_tolerance_text.csv": "lower must be a number, got 'about 5'",
    "tolerance_one_sided.csv": "give both lower and upper",
    "reference_outside_range.csv": "lies outside its range [5, 6]",
    "unknown_answer_type.csv": "unknown answer type 'essay'",
    "empty.csv": "the file is empty",
    "blank_lines_only.csv": "only blanks",
    "only_header.csv": "no data rows",
    "xlsx_really_csv.xlsx": "named .xlsx but it is not an Excel workbook",
    "old_xls_named_xlsx.xlsx": "old Excel 97-2003",
    "truncated.xlsx": "not a complete Excel workbook",
    "formula.xlsx": "starts with '='",
    "empty_sheet.xlsx": "the first worksheet is empty",
    "workbook_named_csv.csv": "name it .xlsx",
    "pdf_named_csv.csv": "a PDF document",
    "unsupported_type.txt": "unsupported file type '.txt'",
    "jsonl_broken_line.jsonl": "not valid JSON",
    "jsonl_truncated.jsonl": "the last line is cut off",
    "jsonl_array.jsonl": "JSON array, not JSON Lines",
    "jsonl_not_object.jsonl": "one JSON object",
    "missing_id.csv": "the id is empty",
    "no_reference_column.csv": "no column is mapped to reference",
    "no_question_or_context.csv": "both question and context are empty",
    "choice_reference_not_option.csv": "neither an option letter nor the text of an option",
    "numeric_reference_not_number.csv": "needs a numeric reference",
    "duplicate_column_names.csv": "appears twice",
    "extra_cells.csv": "an unquoted comma",
    "choices_bad_json.csv": "not a valid JSON list",
}


def _workbook(rows: list[list[object]]) -> bytes:
    import openpyxl

    book = openpyxl.Workbook()
    book.properties.created = book.properties.modified = datetime(2025, 1, 1)
    sheet = book.active
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def files() -> dict[str, bytes]:
    """File name → bytes of every malformed upload."""
    cases = [[f"q{i}", f"Question {i}?", "yes"] for i in range(40)]
    good_xlsx = _workbook([["id", "question", "reference"], *cases])
    rng = random.Random(6)
    return {
        "truncated_quote.csv": (HEAD + 'q1,"What is the usual adult dose of').encode(),
        "truncated_row.csv": (HEAD + "q1,Is 2+2 four?,yes\nq2,Is the sky").encode(),
        "semicolon_delimiter.csv": b"id;question;reference\nq1;Is 2+2 four?;yes\n",
        "tab_delimiter.csv": b"id\tquestion\treference\nq1\tIs 2+2 four?\tyes\n",
        "missing_header.csv": b"q1,A 54-year-old man presents with crushing chest pain for two hours,yes\n"
                              b"q2,A 30-year-old woman asks about a refill of her inhaler today,no\n",
        "binary_junk.csv": bytes(rng.randrange(256) for _ in range(4096)),
        "formula_equals.csv": (HEAD + 'q1,"=HYPERLINK(""http://x.example"",""click"")",yes\n').encode(),
        "formula_plus_at.csv": (HEAD + "q1,+cmd|' /C calc'!A0,yes\nq2,@SUM(1+1),no\n").encode(),
        "formula_minus.csv": (b"id,question,reference,answer_type,lower,upper\n"
                              b"q1,Serum base excess?,-5,numeric_range,-6,-4\n"
                              b"q2,-2+3+cmd|' /C calc'!A0,yes,exact,,\n"),
        "latin1.csv": (HEAD + "q1,Patient has a café-au-lait spot?,yes\n").encode("latin-1"),
        "mixed_encoding.csv": (HEAD + "q1,Névus present?,yes\n").encode() +
                              "q2,Café-au-lait spot?,no\n".encode("latin-1"),
        "utf16.csv": (HEAD + "q1,Is 2+2 four?,yes\n").encode("utf-16"),
        "duplicate_ids.csv": (HEAD + "q1,First?,yes\nq2,Second?,no\nq2,Third?,yes\n").encode(),
        "empty_reference.csv": (HEAD + "q1,First?,yes\nq2,Second?,\n").encode(),
        "bad_tolerance_order.csv": b"id,question,reference,lower,upper\nq1,Dose in mg?,7,10,5\n",
        "bad_tolerance_text.csv": b"id,question,reference,lower,upper\nq1,Dose in mg?,7,about 5,9\n",
        "tolerance_one_sided.csv": b"id,question,reference,lower,upper\nq1,Dose in mg?,7,5,\n",
        "reference_outside_range.csv": b"id,question,reference,lower,upper\nq1,Dose in mg?,7,5,6\n",
        "unknown_answer_type.csv": b"id,question,reference,answer_type\nq1,Describe the plan.,rest,essay\n",
        "empty.csv": b"",
        "blank_lines_only.csv": b"\n  \n\r\n",
        "only_header.csv": HEAD.encode(),
        "xlsx_really_csv.xlsx": (HEAD + "q1,Is 2+2 four?,yes\n").encode(),
        "old_xls_named_xlsx.xlsx": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504),
        "truncated.xlsx": good_xlsx[: len(good_xlsx) // 2],
        "formula.xlsx": _workbook([["id", "question", "reference"], ["q1", "=1+1", "2"]]),
        "empty_sheet.xlsx": _workbook([]),
        "workbook_named_csv.csv": good_xlsx,
        "pdf_named_csv.csv": b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n",
        "unsupported_type.txt": (HEAD + "q1,Is 2+2 four?,yes\n").encode(),
        "jsonl_broken_line.jsonl": b'{"id": "q1", "question": "First?", "reference": "yes"}\n'
                                   b'{"id": "q2", "question": "Second?" "reference": "no"}\n'
                                   b'{"id": "q3", "question": "Third?", "reference": "yes"}\n',
        "jsonl_truncated.jsonl": b'{"id": "q1", "question": "First?", "reference": "yes"}\n'
                                 b'{"id": "q2", "question": "Sec',
        "jsonl_array.jsonl": b'[{"id": "q1", "question": "First?", "reference": "yes"}]\n',
        "jsonl_not_object.jsonl": b'{"id": "q1", "question": "First?", "reference": "yes"}\n'
                                  b'["q2", "Second?"]\n',
        "missing_id.csv": (HEAD + "q1,First?,yes\n,Second?,no\n").encode(),
        "no_reference_column.csv": b"id,question,comment\nq1,First?,looks fine\n",
        "no_question_or_context.csv": b"id,context,question,reference\nq1,,,yes\n",
        "choice_reference_not_option.csv": b"id,question,choices,reference\n"
                                           b"q1,Which drug?,aspirin|heparin,warfarin\n",
        "numeric_reference_not_number.csv": b"id,question,reference,answer_type\n"
                                            b"q1,Potassium?,high,numeric_range\n",
        "duplicate_column_names.csv": b"id,question,reference,question\nq1,First?,yes,again\n",
        "extra_cells.csv": (HEAD + "q1,Is 2+2 four, or five?,yes\n").encode(),
        "choices_bad_json.csv": b'id,question,choices,reference\nq1,Which?,"[""yes"", ""no""",A\n',
    }


def write_big_file(path: Path, size_mb: int = 50) -> Path:
    """A valid-looking CSV of ``size_mb`` MB (only its size is wrong), written at test time."""
    row = "q{},A long synthetic case text used only to make the file large enough to pass the limit.,yes\n"
    with path.open("w", encoding="utf-8") as out:
        out.write(HEAD)
        written, i = len(HEAD), 0
        while written < size_mb * 1024 * 1024:
            line = row.format(i)
            out.write(line)
            written += len(line)
            i += 1
    return path


def main() -> None:
    made = files()
    assert set(made) == set(EXPECTED), set(made) ^ set(EXPECTED)
    for name, data in made.items():
        (HERE / name).write_bytes(data)
    print(f"wrote {len(made)} files to {HERE}")


if __name__ == "__main__":
    main()
