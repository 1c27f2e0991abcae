package parquetfile

// Group is one row group as the footer describes it: what a reader needs to cut a file
// into pieces of about equal size without reading any data.
type Group struct {
	Rows  int64 // rows in the group
	Bytes int64 // bytes the group's column data takes in the file (compressed)
}

// Groups lists the file's row groups, in order, from the footer.
func (f *File) Groups() []Group {
	md := f.pf.Metadata().RowGroups
	gs := make([]Group, len(md))
	for i, rg := range md {
		b := rg.TotalCompressedSize // optional in the format: older writers leave it 0
		if b <= 0 {
			for _, c := range rg.Columns {
				b += c.MetaData.TotalCompressedSize
			}
		}
		if b <= 0 {
			b = rg.TotalByteSize
		}
		gs[i] = Group{Rows: rg.NumRows, Bytes: b}
	}
	return gs
}

// FirstRow is the 1-based number of the first row of row group g.
func FirstRow(groups []Group, g int) int64 {
	row := int64(1)
	for _, x := range groups[:g] {
		row += x.Rows
	}
	return row
}
