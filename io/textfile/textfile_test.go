package textfile

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type got struct {
	line string
	num  int64
}

func readAll(t *testing.T, r io.Reader) ([]got, error) {
	t.Helper()
	lr := NewReader(r)
	var out []got
	for {
		line, num, err := lr.Next()
		if err == io.EOF {
			require.Nil(t, line)
			return out, nil
		}
		out = append(out, got{string(line), num})
		if err != nil {
			return out, err
		}
	}
}

func TestReaderLines(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []got
	}{
		{"empty stream", "", nil},
		{"one terminated", "a\n", []got{{"a\n", 1}}},
		{"final line without newline", "a\nb", []got{{"a\n", 1}, {"b", 2}}},
		{"crlf and blank lines", "a\r\n\n  \r\nb\r", []got{{"a\r\n", 1}, {"\n", 2}, {"  \r\n", 3}, {"b\r", 4}}},
		{"lone newline", "\n", []got{{"\n", 1}}},
		{"NUL bytes", "a\x00b\n\x00", []got{{"a\x00b\n", 1}, {"\x00", 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// OneByteReader forces every refill path through bufio.
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				out, err := readAll(t, r)
				require.NoError(t, err)
				assert.Equal(t, tc.want, out)
			}
		})
	}
}

func TestReaderHugeLines(t *testing.T) {
	big := strings.Repeat("x", 50<<20) // 50 MiB, far beyond the 1 MiB buffer
	in := "short\n" + big + "\n" + big[:3<<20] + "\r\nend"
	out, err := readAll(t, strings.NewReader(in))
	require.NoError(t, err)
	require.Len(t, out, 4)
	assert.Equal(t, got{"short\n", 1}, out[0])
	assert.Equal(t, int64(2), out[1].num)
	assert.True(t, out[1].line == big+"\n", "huge line intact")
	assert.True(t, out[2].line == big[:3<<20]+"\r\n", "line after a huge one intact")
	assert.Equal(t, got{"end", 4}, out[3])
}

func TestReaderErrorMidStream(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("one\ntwo\nthr"), iotest.ErrReader(boom))
	out, err := readAll(t, r)
	require.ErrorIs(t, err, boom)
	assert.Equal(t, []got{{"one\n", 1}, {"two\n", 2}, {"thr", 3}}, out, "the partial line is reported with the number of the line that broke")

	lr := NewReader(io.MultiReader(strings.NewReader("one\n"), iotest.ErrReader(boom)))
	_, _, err = lr.Next()
	require.NoError(t, err)
	line, num, err := lr.Next()
	require.ErrorIs(t, err, boom)
	assert.Empty(t, line)
	assert.Equal(t, int64(2), num, "an error on a line boundary breaks the next line")
	_, num, err = lr.Next()
	require.ErrorIs(t, err, boom, "the error is sticky")
	assert.Equal(t, int64(2), num)
}

func TestContentRecordBlank(t *testing.T) {
	assert.Equal(t, "a", string(Content([]byte("a\n"))))
	assert.Equal(t, "a", string(Content([]byte("a\r\n"))))
	assert.Equal(t, "a\r", string(Content([]byte("a\r"))), "a lone CR at EOF is content")
	assert.Equal(t, "a", string(Content([]byte("a"))))

	assert.Equal(t, `{"a":1}`, string(Record([]byte("\xef\xbb\xbf{\"a\":1}\r\n"), 1)))
	assert.Equal(t, "\xef\xbb\xbfx", string(Record([]byte("\xef\xbb\xbfx\n"), 2)), "a BOM is only a file marker on line 1")

	for _, s := range []string{"", " ", "\t \r", "\u00a0\u2003"} {
		assert.True(t, IsBlank([]byte(s)), "%q", s)
	}
	for _, s := range []string{"x", " . ", "\x00"} {
		assert.False(t, IsBlank([]byte(s)), "%q", s)
	}
}

func TestTextAndID(t *testing.T) {
	text, bad := Text([]byte("plain \x00 nul, é"))
	assert.Equal(t, "plain \x00 nul, é", text)
	assert.False(t, bad)

	text, bad = Text([]byte("a\xff\xfeb\xc3"))
	assert.Equal(t, "a\uFFFD\uFFFDb\uFFFD", text, "one replacement per invalid byte")
	assert.True(t, bad)

	assert.Equal(t, "data/a.txt:17", ID("data/a.txt", 17))
	assert.Equal(t, "gs://b/x.txt.gz:1", ID("gs://b/x.txt.gz", 1))
}
