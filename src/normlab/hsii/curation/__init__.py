"""Curation by people (§4, B.4): the paper's criteria, curators' decisions exported and read
back, and their decisions applied to a bank."""
