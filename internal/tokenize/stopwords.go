package tokenize

import "strings"

// stopwordList is the stopwords (see IsStopword).
const stopwordList = `
	a about after again all also am an and any are as at be been before being both but by can could did
	do does doing done each for from had has have he her here him his how if in into is it its just me
	more most my no nor not now of off on once only or other our out over please same she should so some
	such than that the their them then there these they this those through to too under until up us very
	was we were what when where which while who whom why will with would you your yours
`

// fillerList is the filler words (see IsFiller).
const fillerList = `
	above alright anything back because below between can't continue cool didn't don don't down during
	else ever few fine first further get give go going good got great having hello hers hey hi i isn't
	itself keep last let let's lets like look make need new next nice ok okay old one ours own proceed
	right see show something still sure take tell thank thanks thing things thx tried try two use used
	using want wasn't way well won't work working works yeah yep yes
`

var (
	stopwords = wordSet(stopwordList)
	filler    = wordSet(fillerList)
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for w := range strings.FieldsSeq(s) {
		m[w] = true
	}
	return m
}

// IsStopword reports whether the lowercased word w is a stopword: an
// English function word, which matches most texts and says nothing about
// any. Every query drops them (the stores' full-text queries, recall's
// prompt words, search snippets), and the hashed embedder (package
// embedding) drops them from every text it embeds: its stored vectors were
// computed without them, so changing the list needs a new embedder name.
func IsStopword(w string) bool { return stopwords[w] }

// IsFiller reports whether the lowercased word w is filler: a word a prompt
// uses to ask rather than to name what it wants (conversational filler,
// generic request verbs, ordinals, vague nouns: "ok go on", "can you show
// me the first one", "keep going"). Recall does not count them as words of
// a prompt, so that such a prompt recalls nothing. Searches keep them: a
// question about "the first push" or "the new pet" is about those words,
// and dropping them from the stores' queries cost recall on the survival
// questions (54 to 52 of 60) and on LoCoMo (turn R@10 0.608 to 0.606).
func IsFiller(w string) bool { return filler[w] }
