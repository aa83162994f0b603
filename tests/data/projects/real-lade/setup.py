import setuptools

if __name__ == '__main__':
    setuptools.setup(
        name='lade',
        version='0.0.2',
        description='Lookahead Decoding Implementation',
        author='Fu Yichao',
        author_email='yichaofu2000@outlook.com',
        license='Apache-2',
        url='https://github.com/hao-ai-lab/LookaheadDecoding.git',
        packages=['lade', 'lade.models']
    )

