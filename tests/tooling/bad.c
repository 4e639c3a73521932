/* Does not compile: lineup-cc must report it against this file. */
int main(void)
{
    return undeclared_identifier;
}
