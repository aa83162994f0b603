# init
