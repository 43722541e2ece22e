import pytest

from graphrag_local.errors import ConfigError
from graphrag_local.settings import Settings, load_settings, settings_to_toml


def test_defaults_are_the_papers():
    s = load_settings()
    assert (s.chunks.size, s.chunks.overlap) == (600, 100)
    assert s.extract.max_gleanings == 1 and s.graph.max_cluster_size == 10


def test_config_file_and_overrides(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text('model = "gemma3-270m"\n[chunks]\nsize = 300\n[extract]\nentity_types = ["A", "B"]\n')
    s = load_settings(cfg, model="smollm2-135m")
    assert s.model == "smollm2-135m" and s.chunks.size == 300 and s.extract.entity_types == ("A", "B")


@pytest.mark.parametrize(
    "body,match",
    [
        ("[chunks]\nsise = 3\n", "unknown setting 'sise'"),
        ("[chunks]\nsize = 'big'\n", "must be an integer"),
        ("[chunks]\nsize = 100\noverlap = 100\n", "overlap"),
        ("[extract]\nnames = 'maybe'\n", "extract.names"),
        ("not toml [", "not valid TOML"),
    ],
)
def test_bad_config_names_file_and_problem(tmp_path, body, match):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(body)
    with pytest.raises(ConfigError, match=match) as exc:
        load_settings(cfg)
    assert "bad.toml" in str(exc.value)


def test_toml_round_trip(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text(settings_to_toml(Settings()))
    assert load_settings(cfg) == Settings()
