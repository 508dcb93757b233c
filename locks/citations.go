package locks

import (
	"fmt"
	"strings"
)

// Document is a text an algorithm or a scenario comes from. Algorithms and
// scenarios cite it by ID in their Source; what a reader needs to find it
// is the rest.
type Document struct {
	ID      string // short id, as Source fields cite it
	Title   string // as published
	English string // the title in English, when the original is not
	Author  string // "" when the page does not say
	Site    string // where it was published
	Year    string // "" when unknown
	// Seed is the file name of the project's copy of the text, kept
	// outside this repository (../shared/seeds beside the checkout); only
	// tests read it, and skip it when that folder is absent.
	Seed string
}

// Documents are the five lock documents, in the order of their seed copies.
var Documents = []Document{
	{ID: "toymoban-java", Title: "分布式锁的实现(redis)", English: "Distributed lock implementation (Redis), Java",
		Site: "toymoban.com/news/detail-518333.html", Seed: "000_ec4d129e8a343f45.txt"},
	{ID: "predis-lua", Title: "SETNX lock with PHP, predis and Lua EVAL scripts", English: "",
		Author: "November's chopin", Site: "a Chinese blog post (PHP 7.4, Redis 6.2.7, predis 2.0.3)",
		Seed: "001_fad345b61f1a9c64.txt"},
	{ID: "lihao21-python", Title: "使用Redis SETNX命令实现分布式锁", English: "Implementing a distributed lock with the Redis SETNX command, Python",
		Author: "lihao21", Site: "blog.csdn.net/lihao21", Year: "2016", Seed: "002_8a9477ba888b29a3.txt"},
	{ID: "redis-setnx-page", Title: `SETNX command page, "Design pattern: Implementing locking with SETNX"`,
		Site: "Redis documentation (redis-docs SetnxCommand.rst, before Redis 2.6.12)", Year: "2011",
		Seed: "003_956ee9568385d29f.txt"},
	{ID: "php-setnx-mutex", Title: "基于Redis SETNX实现互斥锁", English: "A mutex with Redis SETNX, PHP",
		Site: "a Hugo blog (theme Stack)", Seed: "004_4f88c610a240f1d1.txt"},
}

// LookupDocument finds a document by ID.
func LookupDocument(id string) (Document, bool) {
	for _, d := range Documents {
		if d.ID == id {
			return d, true
		}
	}
	return Document{}, false
}

// Cite is one source as a reader can find it: the id, the title (in
// English when the original is not), author, site and year where known.
// Reference and unknown ids come back as they are.
func Cite(id string) string {
	d, ok := LookupDocument(id)
	if !ok {
		return id
	}
	title := d.Title
	if d.English != "" {
		title = d.English
	}
	parts := []string{title}
	for _, s := range []string{d.Author, d.Site, d.Year} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return fmt.Sprintf("%s: %s", d.ID, strings.Join(parts, ", "))
}
