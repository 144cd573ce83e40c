"""gen/whole_files.py, the one writer of the Python side: a file is there
whole or not at all, and a failure is one FileError naming the final path."""
import errno

import pytest

from gen import whole_files
from gen.errors import FileError


def test_a_file_that_does_not_fit_leaves_the_old_one_and_no_temporary(small_fs):
    path = small_fs.path / "table.csv"
    whole_files.write_text(path, "old\n")
    small_fs.fill(8192)
    with pytest.raises(FileError) as failure:
        whole_files.write_text(path, "x" * 100_000)
    assert str(failure.value) == f"{path}: No space left on device"
    assert failure.value.out_of_space and failure.value.errno == errno.ENOSPC
    assert path.read_text() == "old\n"
    assert small_fs.files() == ["table.csv"]


def test_create_never_replaces_a_file(tmp_path):
    path = tmp_path / "record.json"
    whole_files.create_text(path, "first\n")
    with pytest.raises(FileError, match="record.json: File exists"):
        whole_files.create_text(path, "second\n")
    assert path.read_text() == "first\n"
    assert [p.name for p in tmp_path.iterdir()] == ["record.json"]


def test_an_append_that_does_not_fit_is_cut_back(small_fs):
    path = small_fs.path / "run.log"
    whole_files.append_text(path, "line 1\n")
    small_fs.fill(0)
    with pytest.raises(FileError, match="run.log: No space left on device"):
        whole_files.append_text(path, "y" * 50_000 + "\n")
    assert path.read_text() == "line 1\n"


def test_a_staged_directory_is_removed_on_an_error(tmp_path):
    final = tmp_path / "archive"
    with pytest.raises(RuntimeError):
        with whole_files.staged_directory(final) as staged:
            whole_files.write_text(staged / "a.csv", "a\n")
            (staged / "read-only").mkdir()
            whole_files.write_text(staged / "read-only" / "b.csv", "b\n")
            (staged / "read-only" / "b.csv").chmod(0o444)
            raise RuntimeError("stop")
    assert list(tmp_path.iterdir()) == []


def test_a_staged_directory_is_published_whole_and_never_over_another(tmp_path):
    final = tmp_path / "archive"
    with whole_files.staged_directory(final) as staged:
        whole_files.write_text(staged / "a.csv", "a\n")
        whole_files.publish_directory(staged, final)
    assert (final / "a.csv").read_text() == "a\n"
    with pytest.raises(FileError, match="archive: File exists"):
        with whole_files.staged_directory(final) as staged:
            whole_files.publish_directory(staged, final)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["archive"]


def test_a_copy_that_does_not_fit_names_the_target(small_fs, tmp_path):
    source = tmp_path / "campaign"
    source.mkdir()
    (source / "experiments.py").write_text("x = 1\n" * 20_000)
    small_fs.fill(8192)
    with pytest.raises(FileError, match=f"{small_fs.path}/copy/experiments.py: No space left on device"):
        whole_files.copy_tree(source, small_fs.path / "copy")
    assert small_fs.files() == ["copy"]
