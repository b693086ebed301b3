/* README.md, first C block: the whole program, as a user would paste it. */
@SNIPPET@
