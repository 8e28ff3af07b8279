/* lnk-init: runs inside bwrap before the program. Not built yet. */
int main(void)
{
	return 125;
}
