"""An installed, non-editable wheel must carry and find models.toml and the prompts."""

import shutil
import subprocess
import sys
import zipfile

from conftest import ROOT


def test_wheel_ships_and_finds_presets_and_prompts(tmp_path):
    src = tmp_path / "src"  # build from a copy: setuptools writes build/ beside the sources
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".venv", ".git", "build", "*.egg-info", "__pycache__", "tests", "samples", "graphrag_index"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(src)],
        check=True, capture_output=True, cwd=tmp_path,
    )
    wheel = next((tmp_path / "dist").glob("graphrag_local-*.whl"))
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        z.extractall(site)
    assert "graphrag_local/data/models.toml" in names
    assert "graphrag_local/data/prompts/extract_entities.txt" in names
    assert "graphrag_local/data/prompts/type_entities.txt" in names
    assert "graphrag_local/graph_view.js" in names
    for module in ("search/global_search.py", "eval/judge.py", "query.py", "stages/extract.py"):
        assert f"graphrag_local/{module}" in names, module
    probe = (
        "from graphrag_local import resources, prompts; from graphrag_local.models import presets; "
        f"assert str(resources.data_dir()).startswith({str(site)!r}); "
        "prompts.load_prompts(); import graphrag_local.cli, graphrag_local.query; "
        "from graphrag_local.graph_view import page_script; assert 'function' in page_script(); "
        "print(sorted(presets.load_presets()[0]))"
    )
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                         text=True, cwd=tmp_path, env={"PYTHONPATH": str(site), "PATH": "/usr/bin"})
    assert "smollm2-135m" in out.stdout
