"""Screening: "does this paper belong in my review?", one paper at a time, the next one
always the most likely of those left (active learning, as ASReview LAB does it), with an
estimate of how many relevant papers are still unread.

* :mod:`.ranker`: the features of the papers in a screening and the order of those not
  yet decided, retrained after every decision;
* :mod:`.stopping`: how many relevant papers there are estimated to be, and whether 95 %
  of them have been found.

Neither module knows the library: they take texts and decisions and return numbers, so
that the simulation (which replays labelled reviews) and the window's screening mode run
the same code.
"""
