"""Consistency of matrices/*.toml and the loader's validation."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from gpudoctor.errors import MatrixError
from gpudoctor.matrix import MATRIX_FILES, load_matrix
from gpudoctor.matrix.tables.model import arch_support, parse_arch, vtuple
from gpudoctor.resources import matrices_dir

M = load_matrix()


def test_every_file_has_sources_and_a_reviewed_date():
    from gpudoctor.matrix.tables.platform_tables import FILES as PLATFORM_FILES  # optional tables, listed when present

    assert set(M.sources) == set(MATRIX_FILES) | set(PLATFORM_FILES)
    for name in set(MATRIX_FILES) | set(PLATFORM_FILES):
        assert M.sources[name], name
        assert all(u.startswith("https://") for u in M.sources[name])
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", M.reviewed_by_file[name])
    assert M.reviewed == "2026-11-21"


def test_torchvision_pairs_exist_and_follow_the_rule():
    for r in M.torch:
        if vtuple(r.latest) >= (2, 0) and r.torchvision:
            # torchvision 0.(N+15) pairs with torch 2.N (pytorch/vision README)
            assert r.torchvision == f"0.{vtuple(r.latest)[1] + 15}", r.series
        for torch_v, tv in r.torchvision_pins.items():
            assert torch_v in r.versions, (r.series, torch_v)
            assert tv.startswith(r.torchvision + "."), (r.series, tv)
    assert all(r.torchvision for r in M.torch if r.series != "2.15")


def test_default_variant_exists_and_releases_are_ordered():
    assert [vtuple(r.latest) for r in M.torch] == sorted(vtuple(r.latest) for r in M.torch)
    assert M.torch[0].series == "1.0" and M.torch[-1].series == "2.15"
    series = [r.series for r in M.tensorflow]
    assert "1.15" in series and all(f"2.{n}" in series for n in range(4, 22))
    for r in M.torch:
        assert r.variant(r.default_linux) is not None


def test_key_facts():
    # minor-version floors (NV-MVC)
    assert (M.mvc_floor(11), M.mvc_floor(12), M.mvc_floor(13)) == ("450.80.02", "525.60.13", "580.65.06")
    assert M.min_driver("12.8") == "570.26" and M.min_driver("12.8", "windows") == "570.65"
    assert M.min_driver("13.0") == "580.65.06"
    assert M.driver_cuda("535.104.05") == "12.2" and M.driver_cuda("470.82.01") == "11.4" and M.driver_cuda("460.32.03") == "11.2"
    # torch defaults and arch lists
    assert M.torch_release("2.7.1").default_linux == "cu126"
    assert "sm_120" in M.torch_release("2.7").variant("cu128").arch
    assert M.torch_release("2.11").default_linux == "cu130" and M.torch_release("2.15").default_linux == "cu132"
    assert "sm_70" not in M.torch_release("2.11").variant("cu128").arch
    assert not any(v.cuda and vtuple(v.cuda)[0] == 12 for v in M.torch_release("2.15").variants)
    # tensorflow
    assert M.tf_release("2.10").windows_gpu and not M.tf_release("2.11").windows_gpu
    assert not M.tf_release("2.13").has_and_cuda and M.tf_release("2.14").has_and_cuda
    assert M.tf_release("2.21").cudnn_pin_below_cc == ("7.5", "nvidia-cudnn-cu12==9.3.0.75")
    # cuDNN 9.11 drops CC < 7.5
    assert M.cudnn_cc_min("9.11.0") == "7.5" and M.cudnn_cc_min("9.10.2") == "5.0" and M.cudnn_cc_min("9.28.0") == "7.5"


@pytest.mark.parametrize(
    ("name", "cc"),
    [("RTX 4090", "8.9"), ("NVIDIA GeForce RTX 4090", "8.9"), ("Tesla V100-SXM2-16GB", "7.0"), ("NVIDIA H100 80GB HBM3", "9.0"),
     ("Tesla T4", "7.5"), ("NVIDIA GeForce RTX 5090", "12.0"), ("NVIDIA A100-SXM4-40GB", "8.0"), ("NVIDIA A10", "8.6"),
     ("NVIDIA RTX 4000 Ada Generation", "8.9"), ("Quadro RTX 4000", "7.5"), ("NVIDIA GeForce GTX 1080 Ti", "6.1"),
     ("NVIDIA GeForce RTX 4090 Laptop GPU", "8.9"), ("NVIDIA L40S", "8.9"), ("Tesla P4", "6.1"), ("Tesla P40", "6.1"),
     ("NVIDIA TITAN X (Pascal)", "6.1"), ("NVIDIA GeForce GTX TITAN X", "5.2"), ("NVIDIA B200", "10.0"), ("Voodoo 5", None)],
)
def test_gpu_names(name, cc):
    assert M.gpu_compute_capability(name) == cc


@pytest.mark.parametrize(
    ("arch", "cc", "how"),
    [(["sm_86"], "8.9", "sass"), (["sm_80"], "8.6", "sass"), (["sm_90"], "8.9", None), (["sm_90", "compute_90"], "12.0", "ptx"),
     (["sm_60"], "6.1", "sass"), (["sm_75", "sm_120"], "6.1", None), (["sm_90a"], "9.0", "sass"), (["sm_90a"], "10.0", None),
     (["sm_100"], "10.3", "sass"), (["sm_120"], "12.1", "sass"), (["8.6+PTX"], "8.9", "sass"), (["7.5+PTX"], "8.0", "ptx")],
)
def test_arch_support(arch, cc, how):
    assert arch_support(arch, cc) == how


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "matrices"
    shutil.copytree(matrices_dir(), target)
    return target


def test_loader_names_the_file_and_key(tmp_path):
    d = _copy(tmp_path)
    text = (d / "torch.toml").read_text().replace('default_linux = "cu126"', 'default_linux = "cu999"', 1)
    (d / "torch.toml").write_text(text)
    with pytest.raises(MatrixError, match=r"torch.toml: key 'release\[\d+\]\.default_linux'"):
        load_matrix(d)


def test_loader_rejects_a_missing_reviewed_date(tmp_path):
    d = _copy(tmp_path)
    (d / "gpus.toml").write_text((d / "gpus.toml").read_text().replace('reviewed = "2026-11-21"', ""))
    with pytest.raises(MatrixError, match=r"gpus.toml: key 'reviewed': missing"):
        load_matrix(d)


def test_loader_rejects_a_bad_version_and_a_cuda_not_in_the_table(tmp_path):
    d = _copy(tmp_path)
    (d / "cudnn.toml").write_text((d / "cudnn.toml").read_text().replace('version = "9.5.1"', 'version = "nine"'))
    with pytest.raises(MatrixError, match=r"cudnn.toml: key 'release\[\d+\]\.version': not a version"):
        load_matrix(d)
    d2 = _copy(tmp_path / "second")
    (d2 / "tensorflow.toml").write_text((d2 / "tensorflow.toml").read_text().replace('cuda = "12.3"', 'cuda = "12.7"', 1))
    with pytest.raises(MatrixError, match=r"CUDA 12.7 is not in cuda.toml"):
        load_matrix(d2)


def test_loader_rejects_a_torch_variant_whose_cuda_is_not_in_the_table(tmp_path):
    d = _copy(tmp_path)
    text = (d / "torch.toml").read_text()
    variant = 'tag = "cu126"\n  cuda = "12.6"'
    assert variant in text
    (d / "torch.toml").write_text(text.replace(variant, 'tag = "cu127"\n  cuda = "12.7"', 1))
    with pytest.raises(MatrixError, match=r"torch.toml: torch [\d.]+ variant cu\d+: CUDA 12.7 is not in cuda.toml"):
        load_matrix(d)


def test_loader_rejects_an_arch_entry_it_cannot_read(tmp_path):
    d = _copy(tmp_path)
    text = (d / "torch.toml").read_text()
    assert '"sm_90"' in text
    (d / "torch.toml").write_text(text.replace('"sm_90"', '"hopper"', 1))
    with pytest.raises(MatrixError, match=r"torch.toml: key 'release\[\d+\]\.variant\[\d+\]\.arch"):
        load_matrix(d)


def test_loader_rejects_a_bad_driver_version(tmp_path):
    d = _copy(tmp_path)
    text = (d / "cuda.toml").read_text()
    first = re.search(r'linux = "([\d.]+)"', text).group(0)
    (d / "cuda.toml").write_text(text.replace(first, 'linux = "five hundred"', 1))
    with pytest.raises(MatrixError, match=r"cuda.toml: key '[\w\[\]\d.]*linux': not a version"):
        load_matrix(d)


def test_loader_rejects_broken_toml(tmp_path):
    d = _copy(tmp_path)
    (d / "cuda.toml").write_text("reviewed = \n")
    with pytest.raises(MatrixError, match=r"cuda.toml: not valid TOML"):
        load_matrix(d)


def test_load_is_cached():
    assert load_matrix() is load_matrix()


def test_every_matrix_file_is_read_one_way(tmp_path):
    # One reader for every matrix file (matrix.reader.read_toml): a broken file names itself in one line, a missing
    # required one says so, a missing optional one is None.
    try:
        import tomllib  # novermin: tomli stands in below 3.11
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    from gpudoctor.errors import MatrixError
    from gpudoctor.matrix.tables.reader import read_toml

    (tmp_path / "bad.toml").write_text("x = [\n")
    with pytest.raises(MatrixError, match=r"bad\.toml: not valid TOML"):
        read_toml(tmp_path / "bad.toml", tomllib, required=False)
    with pytest.raises(MatrixError, match=r"gone\.toml: matrix file missing"):
        read_toml(tmp_path / "gone.toml", tomllib)
    assert read_toml(tmp_path / "gone.toml", tomllib, required=False) is None
    (tmp_path / "ok.toml").write_text('reviewed = "2026-11-24"\n')
    assert read_toml(tmp_path / "ok.toml", tomllib) == {"reviewed": "2026-11-24"}
