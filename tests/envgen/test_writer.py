"""The writer: atomic, and a refused run writes nothing and leaves existing files byte-identical."""

from __future__ import annotations

import os
import stat

import pytest

from gpudoctor.envgen import writer
from gpudoctor.envgen.writer import OutputError, write_files
from gpudoctor.errors import OutputExistsError

FILES = {"environment.yml": "name: a\n", "requirements.txt": "torch==2.14.1\n", "Dockerfile": "FROM python:3.12-slim\n"}


def _listing(path):
    return sorted(p.name for p in path.iterdir())


def test_writes_every_file_and_returns_paths(tmp_path):
    out = tmp_path / "new" / "dir"
    written = write_files(out, FILES)
    assert written == [out / name for name in FILES]
    for name, text in FILES.items():
        assert (out / name).read_text() == text
    assert _listing(out) == sorted(FILES)  # no temporary files left behind


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_files_get_default_permissions_not_mkstemp_0600(tmp_path):
    old = os.umask(0o022)
    try:
        write_files(tmp_path, {"requirements.txt": "x\n"})
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "requirements.txt").stat().st_mode) == 0o644


def test_refusal_leaves_old_file_byte_identical_and_writes_nothing(tmp_path):
    old = b"# my hand-tuned file\r\nnumpy==1.26.4\n\x00binary\xff"
    (tmp_path / "requirements.txt").write_bytes(old)
    before = os.stat(tmp_path / "requirements.txt")
    with pytest.raises(OutputExistsError) as info:
        write_files(tmp_path, FILES)
    assert "requirements.txt" in str(info.value) and "--force" in str(info.value)
    assert (tmp_path / "requirements.txt").read_bytes() == old
    assert os.stat(tmp_path / "requirements.txt").st_mtime_ns == before.st_mtime_ns
    assert _listing(tmp_path) == ["requirements.txt"]  # environment.yml, written first in order, was not written


def test_force_replaces(tmp_path):
    (tmp_path / "Dockerfile").write_text("old\n")
    write_files(tmp_path, FILES, force=True)
    assert (tmp_path / "Dockerfile").read_text() == FILES["Dockerfile"]
    assert _listing(tmp_path) == sorted(FILES)


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_dangling_symlink_counts_as_existing(tmp_path):
    (tmp_path / "environment.yml").symlink_to(tmp_path / "nowhere.yml")
    with pytest.raises(OutputExistsError):
        write_files(tmp_path, FILES)
    assert not (tmp_path / "nowhere.yml").exists()


def test_file_appearing_after_the_check_is_not_clobbered(tmp_path, monkeypatch):
    monkeypatch.setattr(writer, "existing", lambda paths: [])  # the check ran before another process wrote it
    (tmp_path / "requirements.txt").write_text("theirs\n")
    with pytest.raises(OutputExistsError):
        write_files(tmp_path, FILES)
    assert (tmp_path / "requirements.txt").read_text() == "theirs\n"
    assert _listing(tmp_path) == ["requirements.txt"]  # environment.yml, created by this run, was rolled back


def test_output_dir_that_is_a_file(tmp_path):
    (tmp_path / "out").write_text("")
    with pytest.raises(OutputError, match="not a directory"):
        write_files(tmp_path / "out", FILES)


def test_failure_midway_removes_the_files_it_created(tmp_path, monkeypatch):
    real = writer._write_one

    def flaky(path, text, force):
        if path.name == "Dockerfile":
            raise OutputError(f"cannot write {path}: No space left on device")
        real(path, text, force)

    monkeypatch.setattr(writer, "_write_one", flaky)
    (tmp_path / "requirements.txt").write_text("old\n")
    with pytest.raises(OutputError):
        write_files(tmp_path, FILES, force=True)
    assert _listing(tmp_path) == ["requirements.txt"]  # the new environment.yml is gone; the replaced file stays


def test_a_failed_write_removes_the_directories_it_created(tmp_path, monkeypatch):
    from gpudoctor.envgen import writer

    def broken(path, text, force):
        raise writer.OutputError(f"cannot write {path}: disk full")

    monkeypatch.setattr(writer, "_write_one", broken)
    with pytest.raises(writer.OutputError):
        writer.write_files(tmp_path / "a" / "b", {"requirements.txt": "x\n"})
    assert list(tmp_path.iterdir()) == []


def _no_hard_links(src, dst):  # a filesystem without hard links (FAT, some FUSE and network mounts) refuses link()
    raise PermissionError(1, "Operation not permitted")


def test_without_hard_links_the_file_is_still_written_and_still_not_clobbered(tmp_path, monkeypatch):
    monkeypatch.setattr(writer.os, "link", _no_hard_links)
    (path,) = write_files(tmp_path, {"requirements.txt": "torch==2.7.1\n"})
    assert path.read_text() == "torch==2.7.1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["requirements.txt"]  # no temporary file left behind
    with pytest.raises(FileExistsError):
        writer._link_no_clobber(tmp_path / "other.tmp", path)


def test_existing_names_files_and_dangling_links_only(tmp_path):
    (tmp_path / "environment.yml").write_text("theirs\n")
    (tmp_path / "Dockerfile").symlink_to(tmp_path / "nowhere")
    paths = [tmp_path / "environment.yml", tmp_path / "Dockerfile", tmp_path / "requirements.txt"]
    assert writer.existing(paths) == paths[:2]
