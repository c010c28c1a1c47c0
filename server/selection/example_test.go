package selection_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/assignd/assignd/server/selection"
)

// A Selector decides which assignor runs behind a protocol name; wrap the
// default to add rules of your own.
func ExampleDefault() {
	sel, err := selection.Default().Select(context.Background(), selection.Query{GroupID: "orders", ProtocolName: "cooperative-sticky"})
	fmt.Println(sel.Assignor.Name(), sel.Assignor.Version(), strings.HasPrefix(sel.Policy, "default/"), err)
	_, err = selection.Default().Select(context.Background(), selection.Query{ProtocolName: "uniform"})
	fmt.Println(err != nil)
	// Output:
	// cooperative-sticky 1 true <nil>
	// true
}
