"""The import contracts of pyproject.toml ([tool.importlinter]): each layer imports only the
layers below it, and no modules import each other in a circle."""

from pathlib import Path

from importlinter.cli import lint_imports

PROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def test_the_import_contracts_hold(tmp_path):
    assert lint_imports(config_filename=str(PROJECT), cache_dir=str(tmp_path), no_logo=True) == 0


def test_a_broken_layer_is_found(tmp_path):
    """The checker sees an import against the layers (so the test above can fail)."""
    config = tmp_path / "contract.ini"
    config.write_text("[importlinter]\nroot_package = mancalab\n\n"
                      "[importlinter:contract:upside-down]\nname = upside down\ntype = layers\n"
                      "layers =\n    mancalab.core\n    mancalab.web\n")
    assert lint_imports(config_filename=str(config), cache_dir=str(tmp_path), no_logo=True) == 1
