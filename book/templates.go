package book

import (
	_ "embed"
	"html/template"
	"strings"
)

//go:embed site.html.tmpl
var siteTmpl string

var templates = template.Must(template.New("site").Funcs(template.FuncMap{
	// vclass is a verdict's CSS class.
	"vclass": func(verdict string) string { return "v-" + strings.ReplaceAll(verdict, " ", "-") },
	"title":  docTitle,
	// failing says whether any cell of a row has a failing answer on a
	// side (inside or outside).
	"failing": func(side string, row []cellView) bool {
		for _, c := range row {
			if a := c.side(side); a != nil && a.Link != "" {
				return true
			}
		}
		return false
	},
	"rooted": func(root string, c cellView) cellView { return c.rooted(root) },
}).Parse(siteTmpl))

// docTitle is a document's title in English; the original, when it is
// not, is shown under it.
func docTitle(d docView) string {
	if d.English != "" {
		return d.English
	}
	return d.Title
}
