package query

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/pyrepr"
)

// Doc is one query document read from JSONL.
type Doc struct {
	Line int64
	ID   string
	Text string
	Err  error // the line is not a document: bad JSON, no text field
}

// Fields names the JSON fields of a query document.
type Fields struct{ ID, Text string }

// MaxLineBytes bounds one JSONL line; a longer one is answered as an error line.
const MaxLineBytes = 64 << 20

// ReadDocs calls fn with every line of r as a Doc, in order. A line that is not a
// document (or is longer than MaxLineBytes) is passed with Err set; only a read error
// of r stops it. A document without an id gets NAME:LINE, as in dedup.
func ReadDocs(r io.Reader, name string, f Fields, fn func(Doc) error) error {
	return ReadLines(r, name, func(num int64, b []byte) error {
		if b == nil {
			return fn(Doc{Line: num, Err: fmt.Errorf("%s:%d: line longer than %d bytes", name, num, MaxLineBytes)})
		}
		return fn(parseDoc(b, name, num, f))
	})
}

// ReadLines calls fn with every non-blank line of r (without its newline, valid until
// fn returns) and its 1-based number. A line longer than MaxLineBytes is read past
// without being kept (at most that many bytes of it are held) and passed as nil.
func ReadLines(r io.Reader, name string, fn func(num int64, b []byte) error) error {
	return ReadLinesMax(r, name, MaxLineBytes, func(num int64, b []byte, _ int64) error { return fn(num, b) })
}

// ReadLinesMax is ReadLines with the limit maxLine, and passes a line over it (as nil)
// with its size in bytes.
func ReadLinesMax(r io.Reader, name string, maxLine int64, fn func(num int64, b []byte, size int64) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var line int64
	for {
		b, err := br.ReadSlice('\n')
		var long []byte
		size := int64(len(b))
		tooLong := false
		for err == bufio.ErrBufferFull {
			if !tooLong {
				long = append(long, b...)
				tooLong = int64(len(long)) > maxLine
			}
			if tooLong {
				long = nil
			}
			b, err = br.ReadSlice('\n')
			size += int64(len(b))
		}
		if long != nil {
			b = append(long, b...)
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s:%d: %w", name, line+1, err)
		}
		if tooLong || int64(len(bytes.TrimSpace(b))) > maxLine {
			line++
			if err == nil {
				size-- // the newline is no part of the record
			}
			if ferr := fn(line, nil, size); ferr != nil {
				return ferr
			}
		} else if len(b) > 0 {
			line++
			if t := bytes.TrimSpace(b); len(t) > 0 {
				if ferr := fn(line, t, int64(len(t))); ferr != nil {
					return ferr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

func parseDoc(b []byte, name string, line int64, f Fields) Doc {
	d := Doc{Line: line}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		d.Err = fmt.Errorf("%s:%d: not a JSON object: %v", name, line, err)
		return d
	}
	raw, ok := obj[f.Text]
	if !ok || json.Unmarshal(raw, &d.Text) != nil {
		d.Err = fmt.Errorf("%s:%d: field %q: missing or not a string", name, line, f.Text)
		return d
	}
	d.ID = name + ":" + strconv.FormatInt(line, 10)
	if raw, ok := obj[f.ID]; ok {
		var s string
		var n json.Number
		switch {
		case json.Unmarshal(raw, &s) == nil && s != "":
			d.ID = s
		case json.Unmarshal(raw, &n) == nil:
			d.ID = n.String()
		}
	}
	return d
}

// AppendResult appends the JSONL line answering d: its id and its matches as
// {"id":…,"near":[{"id":…,"jaccard":…},…]}, or its line and error.
func AppendResult(dst []byte, d Doc, ms []index.Match, err error) []byte {
	if err == nil {
		err = d.Err
	}
	if err != nil {
		dst = fmt.Appendf(dst, `{"line":%d,"error":`, d.Line)
		dst = appendJSONString(dst, err.Error())
		return append(dst, "}\n"...)
	}
	dst = append(dst, `{"id":`...)
	dst = appendJSONString(dst, d.ID)
	dst = append(dst, `,"near":[`...)
	for i, m := range ms {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"id":`...)
		dst = appendJSONString(dst, m.ID)
		dst = append(dst, `,"jaccard":`...)
		dst = append(dst, pyrepr.Float(m.Jaccard)...)
		dst = append(dst, '}')
	}
	return append(dst, "]}\n"...)
}

func appendJSONString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s)
	return append(dst, b...)
}
