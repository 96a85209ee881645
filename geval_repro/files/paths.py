"""The type of a path argument: a string or any :class:`os.PathLike` of one."""

import os

PathLike = str | os.PathLike[str]
