"""
How the gateway shows text inside a sentence: one line, shortened, with ``…`` where it was cut.

A namespace of the public API for plugins that write sentences about calls
(refusals, summaries, error messages) the way the gateway's own do; a refusal
sentence ends with `NOT_AUTO_ALLOWED`.

Examples:
    >>> from gateway.text import error_detail, shorten
    >>> shorten("rm -rf build\\n  && make all install", 24)
    'rm -rf build && make al…'
    >>> error_detail(ValueError("port must be a number."))
    'port must be a number'
"""

from gateway._calls._text import (
    clip as clip,
    error_detail as error_detail,
    shorten as shorten,
    shorten_quoted as shorten_quoted,
)
from gateway._plan._position import NOT_AUTO_ALLOWED as NOT_AUTO_ALLOWED

__all__ = ["NOT_AUTO_ALLOWED", "clip", "error_detail", "shorten", "shorten_quoted"]
