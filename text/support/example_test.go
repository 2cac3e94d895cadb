package support_test

import (
	"fmt"

	"github.com/vouchgate/vouch/text/mention"
	"github.com/vouchgate/vouch/text/support"
)

func Example() {
	ix := support.NewIndex([]support.Source{
		support.FromJSON("sources[0]", []byte(`{"company":"Acme","revenue_usd":3200000,"year":2023,"latency_ms":1250}`)),
		support.FromJSON("sources[1]", []byte(`"Acme was founded in 1998 in Denver, its CEO Jane Smith said."`)),
	})
	answer := "Acme made about $3.2 million in 2023. " +
		"It was founded in 1996 in Denver. " +
		`Jane Smith called it "a record year".`
	for _, c := range ix.Claims(mention.Parse(answer)) {
		fmt.Printf("%q supported=%v sources=%v\n", c.Sentence.Text, c.Supported(), c.Sources)
		for _, a := range c.Unsupported {
			fmt.Printf("  unsupported %s %q\n", a.Kind, a.Text)
		}
		for _, ct := range c.Contradicted {
			fmt.Printf("  contradicted %q: %s says %q\n", ct.Atom.Text, ct.Source, ct.Found)
		}
	}
	// Output:
	// "Acme made about $3.2 million in 2023." supported=true sources=[sources[0]]
	// "It was founded in 1996 in Denver." supported=false sources=[sources[1]]
	//   unsupported date "1996"
	//   contradicted "1996": sources[1] says "1998"
	// "Jane Smith called it \"a record year\"." supported=false sources=[sources[1]]
	//   unsupported quote "a record year"
}
