"""Where packaged files and per-user folders are. Packaged data (models.toml, prompts/)
sits at the top of the repository and is installed as `graphrag_local.data`; this module
finds it in a wheel install and in a source checkout alike."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """Folder holding models.toml and prompts/: `graphrag_local/data` in an installed
    wheel, the top of the repository in a checkout or an editable install."""
    installed = Path(__file__).resolve().parent / "data"
    if (installed / "models.toml").is_file():
        return installed
    return Path(__file__).resolve().parent.parent


def prompts_dir() -> Path:
    base = data_dir()
    return base / "prompts" if (base / "prompts").is_dir() else base


def models_toml() -> Path:
    return data_dir() / "models.toml"


def _base(xdg_env: str, default_rel: str, name: str) -> Path:
    if os.environ.get("GRAPHRAG_LOCAL_HOME"):  # one switch that moves everything (tests)
        return Path(os.environ["GRAPHRAG_LOCAL_HOME"]) / name
    base = Path(os.environ.get(xdg_env) or Path.home() / default_rel)
    return base / "graphrag-local"


def _private_dir(path: Path) -> Path:
    """`path`, created (or made) 0700: it holds your presets, hashes and assembled models.
    Best effort: where it cannot be made (a read-only home), the writer reports that."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o777
        if mode & 0o077:
            path.chmod(mode & 0o700)
    except OSError:
        pass
    return path


def user_config_dir() -> Path:
    return _private_dir(_base("XDG_CONFIG_HOME", ".config", "config"))


def user_cache_dir() -> Path:
    return _private_dir(_base("XDG_CACHE_HOME", ".cache", "cache"))


def models_dir() -> Path:
    """Where users drop GGUF files for `source = "models_dir"` presets."""
    if os.environ.get("GRAPHRAG_LOCAL_MODELS_DIR"):
        return Path(os.environ["GRAPHRAG_LOCAL_MODELS_DIR"])
    return _base("XDG_DATA_HOME", ".local/share", "data") / "models"
