package support

import (
	"slices"
	"testing"

	"github.com/vouchgate/vouch/text/mention"
)

// restateCase is an answer checked against its sources, with the atoms that
// must come out unsupported (nil: the answer is supported).
type restateCase struct {
	name        string
	sources     []string // JSON text when it starts with { or [, else prose
	answer      string
	unsupported []string
}

// runRestate checks each case's unsupported atoms.
func runRestate(t *testing.T, cases []restateCase) {
	t.Helper()
	for _, c := range cases {
		var srcs []Source
		for i, s := range c.sources {
			id := "sources[" + string(rune('0'+i)) + "]"
			if s != "" && (s[0] == '{' || s[0] == '[') {
				srcs = append(srcs, FromJSON(id, []byte(s)))
			} else {
				srcs = append(srcs, Source{ID: id, Text: s})
			}
		}
		var got []string
		for _, cl := range NewIndex(srcs).Claims(mention.Parse(c.answer)) {
			for _, a := range cl.Unsupported {
				got = append(got, a.Text)
			}
		}
		if !slices.Equal(got, c.unsupported) {
			t.Errorf("%s: unsupported %q, want %q", c.name, got, c.unsupported)
		}
	}
}

// TestSelfCount: the line that introduces an answer may count the
// answer's words; no source holds that count.
func TestSelfCount(t *testing.T) {
	src := []string{"The council approved the new budget of $4 million on Tuesday after a long debate."}
	runRestate(t, []restateCase{
		{"words, introducing", src, "Here is a summary of the article in 94 words:\n\nThe council approved a $4 million budget.", nil},
		{"or less", src, "Here's the summary within 120 words or less:\n\nThe council approved a $4 million budget.", nil},
		{"not introducing", src, "The council debated 94 words of the budget.", []string{"94"}},
		{"not a text unit", src, "Here are the 94 changes in the budget:\n\nThe council approved a $4 million budget.", []string{"94 changes"}},
	})
}

// TestPlaceNames: a place is named by its name, its demonym or its
// abbreviation; a name's leading or inner titles may be left out.
func TestPlaceNames(t *testing.T) {
	rec := `{"name": "Blue Door Bistro", "city": "Santa Rosa", "state": "CA"}`
	runRestate(t, []restateCase{
		{"state code", []string{rec}, "Blue Door Bistro is in Santa Rosa, California.", nil},
		{"another state", []string{rec}, "Blue Door Bistro is in Santa Rosa, Oregon.", []string{"Oregon"}},
		{"code in lower case", []string{"Prices are in Canadian dollars, or about 20 ca."}, "Prices are the same in California.", []string{"California"}},
		{"demonym for country", []string{"Police in France arrested two men on Monday."}, "French police arrested two men.", nil},
		{"country for demonym", []string{"Most of the names were British; 55 were Americans."}, "Soldiers from Britain and the United States signed the walls.", nil},
		{"name then demonym", []string{"Activists in London painted the road outside the Russian embassy."}, "Activists painted the road outside the London Russian embassy.", nil},
		{"name then demonym, apart", []string{"Activists in Paris painted the road outside the Russian embassy."}, "Activists painted the road outside the London Russian embassy.", []string{"London Russian"}},
		{"no city demonyms", []string{"The Parisian café was full."}, "They met in Paris.", []string{"Paris"}},
	})
}

// TestTitledNames: role words before a name ("Juror", "Attorney General")
// are no part of it; what else the name holds must be in the same source.
func TestTitledNames(t *testing.T) {
	runRestate(t, []restateCase{
		{"leading role", []string{"But Kelly Dorsey watches the Patriots every Sunday."}, "Juror Kelly Dorsey watched the Patriots.", nil},
		{"plural role", []string{"Iman Hashi, 25, and her sister Siham left Mogadishu."}, "Sisters Iman and Siham left Mogadishu.", nil},
		{"place and titles", []string{"Texas sued. Attorney General Ken Paxton spoke on Monday."}, "Texas Attorney General Ken Paxton spoke.", nil},
		{"place elsewhere", []string{"Ohio sued. Attorney General Ken Paxton spoke on Monday."}, "Texas Attorney General Ken Paxton spoke.", []string{"Texas Attorney General Ken Paxton"}},
		{"another person", []string{"Commissioner James O'Neill spoke."}, "Commissioner William Bratton spoke.", []string{"Commissioner William Bratton"}},
	})
}

// TestUndecided: what the rules cannot read either way is neither
// supported nor unsupported, and alone makes no claim checkable.
func TestUndecided(t *testing.T) {
	cases := []struct {
		name, source, answer string
		undecided            []string
		checkable            bool
	}{
		{"paraphrased quote", "The boss admitted the company failed to get the balance right when it raised prices.",
			`The boss said the company "did not get the balance right" when it raised prices.`, []string{"did not get the balance right"}, false},
		{"short quote, a word changed", "The endpoint returns 404 with the message \"No account with that email\" for unknown addresses.",
			`Unknown addresses get a 404 with the message "Email address not registered".`, nil, true},
		{"quote not there", "The boss admitted the company failed to get the balance right when it raised prices.",
			`The boss said the results were "a disaster for everyone".`, nil, true},
		{"count under another noun", "In total, 870 people worldwide have been infected, and 457 deaths were reported in 21 countries.",
			"About 870 cases have been reported worldwide.", []string{"870 cases"}, false},
		{"count not there", "In total, 870 people worldwide have been infected.", "About 910 cases have been reported.", nil, true},
		{"year worked out", "The transfers started on 17 August last year, the report says.", "The transfers started in August 2022.", []string{"August 2022"}, false},
		{"other month", "The transfers started on 17 August last year, the report says.", "The transfers started in May 2022.", nil, true},
	}
	for _, c := range cases {
		ix := NewIndex([]Source{{ID: "s", Text: c.source}})
		claims := ix.Claims(mention.Parse(c.answer))
		var got []string
		checkable := false
		for _, cl := range claims {
			for _, a := range cl.Undecided {
				got = append(got, a.Text)
			}
			checkable = checkable || cl.Checkable
		}
		if !slices.Equal(got, c.undecided) || checkable != c.checkable {
			t.Errorf("%s: undecided %q checkable %v, want %q %v", c.name, got, checkable, c.undecided, c.checkable)
		}
	}
}

// TestClockTimes: an hour with am or pm is a time of day, found in a clock
// time however the source writes it ("21:00", a record's "17:0-21:0", "9
// p.m."), and never as a bare number.
func TestClockTimes(t *testing.T) {
	rec := `{"name": "Corner Noodle", "hours": {"Monday": "11:0-21:30", "Saturday": "8:0-14:0"}, "stars": 4.5}`
	runRestate(t, []restateCase{
		{"record hours", []string{rec}, "Corner Noodle opens at 11 am and closes at 9:30 pm on Mondays; on Saturdays it is open from 8 a.m. to 2 PM.", nil},
		{"hour not held", []string{rec}, "Corner Noodle closes at 10 pm on Mondays.", []string{"10"}},
		{"not a bare number beside clock times", []string{`{"name": "Corner Noodle", "rooms": 9, "hours": {"Monday": "11:0-21:30"}}`}, "Corner Noodle closes at 9 pm.", []string{"9"}},
		{"the bare hour of a chat", []string{"Jacob: Got it! 7? 8? Alex: Let's make it 7."}, "They agree to meet at 7 pm.", nil},
		{"prose clock", []string{"The shop opens at 07:30 and closes at 19:00 every day."}, "It closes at 7 pm.", nil},
		{"prose am", []string{"Doors open at 6 p.m. sharp."}, "Doors open at 6 pm.", nil},
		{"noon", []string{`{"hours": {"Friday": "12:0-0:0"}}`}, "On Fridays it opens at 12 PM and closes at 12 am.", nil},
	})
}

// TestSpelledNumbers: a source that spells a number out holds it.
func TestSpelledNumbers(t *testing.T) {
	src := []string{"Planners drew more than thirty track designs; twenty-one teams and two sponsors signed."}
	runRestate(t, []restateCase{
		{"tens", src, "Planners drew more than 30 track designs.", nil},
		{"hyphenated", src, "In all, 21 teams signed.", nil},
		{"other number", src, "Planners drew 40 track designs.", []string{"40"}},
	})
}

// TestNameSpellings: a name is the same spelt with "&" or "and", with or
// without the periods of an acronym, before a hyphenated suffix, or in a
// catalogue's "Noun (Qualifier)" order; a quoted title may drop its
// article.
func TestNameSpellings(t *testing.T) {
	runRestate(t, []restateCase{
		{"and for &", []string{"Guidance from the U.S. Food and Drug Administration came out Wednesday."}, "The Food & Drug Administration issued guidance.", nil},
		{"& for and", []string{"Shares of Procter & Gamble rose."}, "Procter and Gamble shares rose.", nil},
		{"acronym with periods", []string{"The U.N. Security Council met on Saturday."}, "The UN Security Council met.", nil},
		{"acronym without periods", []string{"The UN Security Council met on Saturday."}, "The U.N. Security Council met.", nil},
		{"another acronym", []string{"The U.N. Security Council met on Saturday."}, "The EU Security Council met.", []string{"EU Security Council"}},
		{"hyphenated suffix", []string{"A podcast for fans of The Sims, by Technobabble."}, "It is a Sims-centric podcast made by Technobabble.", nil},
		{"catalogue order", []string{`{"categories": "Breakfast & Brunch, Mexican, American (Traditional)"}`}, "It serves Mexican and Traditional American food.", nil},
		{"catalogue order, other word", []string{`{"categories": "Mexican, American (New)"}`}, "It serves Traditional American food.", []string{"Traditional American"}},
		{"quoted title without its article", []string{`He shot the "Lord of the Rings" and "Hobbit" films.`}, `He shot "The Hobbit".`, nil},
	})
}

// TestClockAtoms: times of day written with minutes ("11:00 am") or
// without a space ("10pm") are checked against sources that write times of
// day, and left alone where none does.
func TestClockAtoms(t *testing.T) {
	rec := `{"name": "Corner Noodle", "hours": {"Monday": "11:0-19:0", "Tuesday": "11:0-19:0"}}`
	runRestate(t, []restateCase{
		{"held", []string{rec}, "Corner Noodle is open from 11:00 am to 7:00 pm.", nil},
		{"no space", []string{rec}, "Corner Noodle is open from 11am to 7pm.", nil},
		{"not held", []string{rec}, "Corner Noodle is open from 10:00 am to 9:00 pm.", []string{"10:00", "9:00"}},
		{"no times in the sources", []string{"Alex: see you at half past ten then"}, "They meet at 10:30 am.", nil},
	})
}
