package reportpage

import (
	"io"

	"github.com/vtpmctl/vtpmctl/domain/advice"
)

// Helpers only the tests call: the production entry points are
// elsewhere in the package.

// Render writes the whole page; RenderView says what it leaves out.
func Render(w io.Writer, in Inputs, words advice.Words) error {
	return RenderView(w, in, View{}, words)
}
