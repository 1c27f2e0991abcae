//go:build !linux

package segment

func mapFile(string, int64) []byte { return nil }
func unmapFile([]byte)             {}
func dropPages([]byte)             {}
func willNeed([]byte)              {}
func residentFileBytes() int64     { return -1 }
