"""The README's Python example runs as written."""
import os
import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def test_readme_example(tmp_path, capsys):
    text = README.read_text()
    section = text[text.index("\n## Python\n"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(code, "README.md (## Python)", "exec"), {})
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    assert out.startswith("s0 2023-11-14T22:13:20+00:00 0.0\n49.95 334\n")
