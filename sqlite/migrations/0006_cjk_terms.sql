-- Schema version 6: the terms column also holds the character bigrams of
-- each run of Han, Kana or Hangul (tokenize.IndexTerms), so that a word
-- inside such a run ("全量" in "首次全量") is found. Terms are computed in
-- Go: chunks stored before have theirs computed again by Backfill, newest
-- first, below the meta value 'terms_backfill_below' (each changed row is
-- indexed again by the update triggers). Until then they are found as
-- before.
INSERT OR REPLACE INTO meta (key, value) SELECT 'terms_backfill_below', coalesce(max(id), 0) + 1 FROM chunks;
