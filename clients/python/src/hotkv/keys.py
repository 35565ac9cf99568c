"""Key names sharing a hash tag."""


def key(tag, *parts):
    """Build a key in hash tag ``tag``: ``key("user:42", "balance")`` is
    ``"{user:42}:balance"``.

    Keys built with the same tag hash to the same cluster slot and share one
    lock under key-based locking, so they can be used together in one
    transaction or one ``allow-key-locking`` script.
    """
    tag = str(tag)
    if not tag:
        raise ValueError("hash tag must not be empty")
    if "}" in tag:
        raise ValueError(f"hash tag must not contain '}}': {tag!r}")
    return ":".join(["{" + tag + "}"] + [str(p) for p in parts])
